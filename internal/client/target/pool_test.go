package target

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
)

// streamServer answers every POST with an event stream: one event (the
// answer), then the end of the stream once end lets it (at once when end is
// nil) or once the client has gone. It counts the connections it accepts.
func streamServer(t *testing.T, end <-chan struct{}) (string, *scaleout.CountingListener) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
		http.NewResponseController(w).Flush()
		if end != nil {
			select {
			case <-end:
			case <-r.Context().Done():
			}
		}
	}))
	l := scaleout.CountAccepts(srv.Listener)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, l
}

// answered sends one request through p and reads its first event, as a
// client that waits for its answer does; it returns the rest of the body
// and the request's cancel.
func answered(t *testing.T, p *Pool, url string) (io.ReadCloser, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	resp, err := (&http.Client{Transport: p}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "data:") {
		t.Fatalf("first event: %q, %v", line, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{br, resp.Body}, cancel
}

// The call returns with its answer and ends its context before the server
// has ended the stream: the rest is still read, and the next request takes
// the same connection.
func TestPoolKeepsTheConnectionAfterTheAnswer(t *testing.T) {
	end := make(chan struct{})
	url, accepts := streamServer(t, end)
	p := NewPool(0)
	defer p.Close()
	for i := range 5 {
		rest, cancel := answered(t, p, url)
		cancel()
		end <- struct{}{} // the server ends the stream only now
		if _, err := io.Copy(io.Discard, rest); err != nil {
			t.Fatalf("request %d: the rest of the body was cut: %v", i, err)
		}
		rest.Close()
	}
	if n := accepts.Accepted(); n != 1 {
		t.Errorf("5 requests one after the other: %d connections, want 1", n)
	}
}

// A request sent while the previous one's body is still being drained
// waits for it and takes its connection instead of dialing another.
func TestPoolWaitsForTheDrain(t *testing.T) {
	end := make(chan struct{})
	url, accepts := streamServer(t, end)
	p := NewPool(0)
	defer p.Close()
	var wg sync.WaitGroup
	for range 3 {
		rest, cancel := answered(t, p, url)
		cancel()
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(20 * time.Millisecond) // the next request is on its way by now
			end <- struct{}{}
			io.Copy(io.Discard, rest)
			rest.Close()
		}()
	}
	wg.Wait()
	if n := accepts.Accepted(); n != 1 {
		t.Errorf("3 requests, each sent before the last one's body ended: %d connections, want 1", n)
	}
}

// A body nobody reads after its context ended is cancelled after the
// grace, and no later request waits for it any longer.
func TestPoolCancelsAnAbandonedBody(t *testing.T) {
	url, _ := streamServer(t, make(chan struct{})) // never ends a stream by itself
	p := NewPool(0)
	p.grace = 10 * time.Millisecond
	defer p.Close()
	rest, cancel := answered(t, p, url)
	defer rest.Close()
	cancel()
	if _, err := io.Copy(io.Discard, rest); !errors.Is(err, context.Canceled) {
		t.Errorf("reading an endless body after its context ended: %v, want it cancelled", err)
	}
	abandoned, cancel2 := answered(t, p, url)
	defer abandoned.Close()
	cancel2()
	next, cancel3 := answered(t, p, url) // returns: it does not wait for the abandoned body for ever
	cancel3()
	next.Close()
}

// A context that ends before the answer cancels the request at once, as
// without the Pool.
func TestPoolCancelsBeforeTheAnswer(t *testing.T) {
	got := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server sees the client go
		close(got)
		<-r.Context().Done()
	}))
	defer srv.Close()
	p := NewPool(0)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-got; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
	if _, err := (&http.Client{Transport: p}).Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("%v, want the request cancelled", err)
	}
}

// goroutinesCreated is how many goroutines this process has started so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// awaitGoroutines waits until no more than n goroutines are left, and fails
// the test, listing them, when that does not happen within a minute (a
// bound against a hang: a busy machine ends them late).
func awaitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Once its bodies have ended and it is closed, a Pool leaves nothing
// running: no timer left to fire (each answered request whose context ended
// before its body did once left one, which fired a goroutine a second after
// the run), no connection, no goroutine.
func TestPoolLeavesNothingRunning(t *testing.T) {
	end := make(chan struct{})
	url, _ := streamServer(t, end)
	base := runtime.NumGoroutine()
	p := NewPool(0)
	p.grace = 20 * time.Millisecond
	for range 5 {
		rest, cancel := answered(t, p, url)
		cancel() // the call returned with its answer: the body is still open
		end <- struct{}{}
		io.Copy(io.Discard, rest)
		rest.Close()
	}
	p.Close()
	before := goroutinesCreated()
	time.Sleep(10 * p.grace) // a timer left behind fires by now
	if n := goroutinesCreated() - before; n != 0 {
		t.Errorf("%d goroutines started after the Pool was closed and its bodies had ended, want none", n)
	}
	awaitGoroutines(t, base)
}

// A body still being read when the Pool is closed closes its connection
// when it ends.
func TestPoolClosedWhileDraining(t *testing.T) {
	end := make(chan struct{})
	url, accepts := streamServer(t, end)
	base := runtime.NumGoroutine()
	p := NewPool(0)
	rest, cancel := answered(t, p, url)
	cancel()
	p.Close()
	end <- struct{}{}
	if _, err := io.Copy(io.Discard, rest); err != nil {
		t.Fatalf("the rest of the body after Close: %v", err)
	}
	rest.Close()
	awaitGoroutines(t, base)
	if n := accepts.Accepted(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}
