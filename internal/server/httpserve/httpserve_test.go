package httpserve_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/testsupport/bodylimit"
)

// small are the tests' limits of size, and times no request of theirs
// misses on a busy machine: a test shortens only the time it tests, and
// waits out that one only where nothing else ends the request.
func small() *httpserve.Options {
	return &httpserve.Options{MaxBody: 1000, BodyTimeout: time.Minute, IdleTimeout: time.Minute,
		ReadHeaderTimeout: time.Minute, MaxHeaderBytes: 4096}
}

// serve starts h behind the server httpserve builds, with small limits.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	return serveWith(t, h, small())
}

func serveWith(t *testing.T, h http.Handler, o *httpserve.Options) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	cfg := httpserve.Server(h, o)
	hs.Config.Handler, hs.Config.ReadHeaderTimeout, hs.Config.IdleTimeout, hs.Config.MaxHeaderBytes, hs.Config.ConnState, hs.Config.ConnContext =
		cfg.Handler, cfg.ReadHeaderTimeout, cfg.IdleTimeout, cfg.MaxHeaderBytes, cfg.ConnState, cfg.ConnContext
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.Listener.Addr().String()
}

// echo answers with the body it read, after wait.
func echo(wait time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		time.Sleep(wait)
		fmt.Fprintf(w, "got %s", b)
	})
}

// status sends raw on a new connection and returns the status line of the
// answer (or the read error) and the connection.
func status(t *testing.T, addr, raw string, pause time.Duration, rest string) (string, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // against a hang
	io.WriteString(c, raw)
	if pause > 0 {
		time.Sleep(pause)
		io.WriteString(c, rest)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "error: " + err.Error(), c
	}
	return strings.TrimSpace(line), c
}

// A body that does not arrive in time is refused with 408, and the
// connection is not kept: a slow client cannot hold a handler.
func TestSlowBodyRefused(t *testing.T) {
	o := small()
	o.BodyTimeout = 300 * time.Millisecond // the rest never comes
	addr := serveWith(t, echo(0), o)
	line, _ := status(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", 0, "")
	if !strings.Contains(line, "408") {
		t.Fatalf("a body that stopped arriving: %q, want 408", line)
	}
}

func TestLargeBodyRefused(t *testing.T) {
	addr := serve(t, echo(0))
	bodylimit.Refused(t, "http://"+addr+"/", 1000, nil)
}

func TestLargeHeaderRefused(t *testing.T) {
	addr := serve(t, echo(0))
	line, _ := status(t, addr, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 8192)+"\r\n\r\n", 0, "")
	if !strings.Contains(line, "431") {
		t.Fatalf("8 KiB of headers over a 4 KiB limit: %q, want 431", line)
	}
}

// A kept-alive connection that sends no further request is closed.
func TestIdleConnectionClosed(t *testing.T) {
	o := small()
	o.IdleTimeout = 300 * time.Millisecond // no further request comes
	addr := serveWith(t, echo(0), o)
	line, c := status(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", 0, "")
	if !strings.Contains(line, "200") {
		t.Fatalf("a plain request: %q", line)
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // against a hang
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the idle connection was not closed by the server: %v", err)
	}
}

// A body that arrives within the time, even in pieces, is served; a handler
// may then take longer than the body's time to answer. (The body's time, 2 s,
// is 40 times the pause between the pieces, for a busy machine.)
func TestPromptBodyServedAndSlowAnswerKept(t *testing.T) {
	t.Parallel()
	o := small()
	o.BodyTimeout = 2 * time.Second
	addr := serveWith(t, echo(2*o.BodyTimeout), o)
	line, _ := status(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab", 50*time.Millisecond, "cd")
	if !strings.Contains(line, "200") {
		t.Fatalf("a body in two pieces and a slow answer: %q, want 200", line)
	}
}
