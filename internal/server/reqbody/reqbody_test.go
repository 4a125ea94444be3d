package reqbody_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/internal/testsupport/bodylimit"
)

// A body is read once: every later layer gets the same bytes without reading
// the connection again, and the handler can still read it.
func TestReadOnce(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"method":"ping"}`))
	w := httptest.NewRecorder()
	first, err := reqbody.Read(w, r, reqbody.Limits{Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	second, err := reqbody.Read(w, r, reqbody.Limits{Max: 100})
	if err != nil || &first[0] != &second[0] {
		t.Fatalf("second read: %q, %v; want the same bytes", second, err)
	}
	all, _ := io.ReadAll(r.Body)
	if string(all) != `{"method":"ping"}` {
		t.Fatalf("the handler reads %q", all)
	}
	// A layer with a smaller limit refuses what an outer one read.
	if _, err := reqbody.Read(w, r, reqbody.Limits{Max: 5}); !errors.Is(err, reqbody.ErrTooLarge) {
		t.Fatalf("inner limit 5: %v", err)
	}
}

// An inner layer reads within the tighter of its own limit and the one on
// the request's context, whether the length is announced or not.
func TestLimitOnContext(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(strings.Repeat("x", 100))
		if chunked {
			body = io.MultiReader(body) // no length known
		}
		r := httptest.NewRequest(http.MethodPost, "/", body)
		if chunked {
			r.ContentLength = -1
		}
		r = reqbody.WithLimits(r, reqbody.Limits{Max: 64})
		_, err := reqbody.Read(httptest.NewRecorder(), r, reqbody.Limits{Max: 4 << 20})
		if !errors.Is(err, reqbody.ErrTooLarge) || reqbody.Status(err) != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked=%v: 100 bytes under a limit of 64 on the context: %v", chunked, err)
		}
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 64)))
		r = reqbody.WithLimits(r, reqbody.Limits{Max: 64})
		if b, err := reqbody.Read(httptest.NewRecorder(), r, reqbody.Limits{Max: 4 << 20}); err != nil || len(b) != 64 {
			t.Errorf("64 bytes under 64: %d, %v", len(b), err)
		}
	}
	if got := reqbody.LimitsOf(httptest.NewRequest(http.MethodPost, "/", nil), reqbody.Limits{}); got.Max != reqbody.DefaultMax || got.Timeout != reqbody.DefaultTimeout {
		t.Errorf("defaults: %+v", got)
	}
	r := reqbody.WithLimits(httptest.NewRequest(http.MethodPost, "/", nil), reqbody.Limits{Max: 10, Timeout: time.Second})
	if got := reqbody.LimitsOf(r, reqbody.Limits{Max: 100, Timeout: -1}); got.Max != 10 || got.Timeout != time.Second {
		t.Errorf("own no timeout, context 1s: %+v", got)
	}
}

// A body that trickles is refused when its time is up, with 408, through a
// real connection.
func TestSlowBody(t *testing.T) {
	done := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := reqbody.Read(w, r, reqbody.Limits{Max: 1 << 20, Timeout: 200 * time.Millisecond})
		done <- err
		if err != nil {
			reqbody.Refuse(w, err)
		}
	}))
	defer srv.Close()
	bodylimit.Stalls(t, srv.Listener.Addr().String(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
	if err := <-done; !errors.Is(err, reqbody.ErrTooSlow) {
		t.Fatalf("a body that stops: %v", err)
	}
}

func TestForm(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("a=1&b=two"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	vs, err := reqbody.Form(httptest.NewRecorder(), r, reqbody.Limits{Max: 100})
	if err != nil || vs.Get("b") != "two" {
		t.Fatalf("form: %v, %v", vs, err)
	}
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("a=1&", 100)))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if _, err := reqbody.Form(httptest.NewRecorder(), r, reqbody.Limits{Max: 100}); !errors.Is(err, reqbody.ErrTooLarge) {
		t.Fatalf("a long form: %v", err)
	}
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader("a=1"))
	r.Header.Set("Content-Type", "application/json")
	if vs, err := reqbody.Form(httptest.NewRecorder(), r, reqbody.Limits{Max: 100}); err != nil || len(vs) != 0 {
		t.Fatalf("a body of another type: %v, %v; want no values", vs, err)
	}
}

// The budget bounds the bytes of bodies in flight, in total and per client:
// a body that does not fit waits for room, or is refused when none comes.
// Clients that fill the total with large bodies (many addresses, each within
// its share) do not keep another client's small request out: the first 4 KiB
// of a body wait for the client's own share only.
func TestBudgetKeepsNoSmallBodyOut(t *testing.T) {
	b := reqbody.NewBudget(64<<10, 16<<10, time.Minute)
	post := func(n int) *http.Request {
		return httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(make([]byte, n)))
	}
	var releases []func()
	for i := range 4 {
		_, rel, err := b.Read(httptest.NewRecorder(), post(16<<10), reqbody.Limits{}, fmt.Sprint("flooder", i))
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, rel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	small := post(300).WithContext(ctx)
	body, rel, err := b.Read(httptest.NewRecorder(), small, reqbody.Limits{}, "someone")
	if err != nil || len(body) != 300 {
		t.Fatalf("a small body while the total is taken: %d bytes, %v", len(body), err)
	}
	rel()
	// A large one still waits for room in the total.
	large := post(8 << 10).WithContext(ctx)
	cancel()
	if _, _, err := b.Read(httptest.NewRecorder(), large, reqbody.Limits{}, "someone"); !errors.Is(err, reqbody.ErrBusy) {
		t.Fatalf("a body past the first 4 KiB while the total is taken: %v", err)
	}
	for _, rel := range releases {
		rel()
	}
	if b.InUse() != 0 {
		t.Fatalf("in use after release: %d", b.InUse())
	}
}

func TestBudget(t *testing.T) {
	b := reqbody.NewBudget(100, 60, 50*time.Millisecond)
	post := func(n int) *http.Request {
		return httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(make([]byte, n)))
	}
	_, relA, err := b.Read(httptest.NewRecorder(), post(60), reqbody.Limits{}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Read(httptest.NewRecorder(), post(10), reqbody.Limits{}, "a"); !errors.Is(err, reqbody.ErrBusy) || reqbody.Status(err) != http.StatusServiceUnavailable {
		t.Fatalf("client a over its share: %v", err)
	}
	_, relB, err := b.Read(httptest.NewRecorder(), post(40), reqbody.Limits{}, "b")
	if err != nil {
		t.Fatalf("client b within the total: %v", err)
	}
	if _, _, err := b.Read(httptest.NewRecorder(), post(5000), reqbody.Limits{}, "c"); !errors.Is(err, reqbody.ErrBusy) {
		t.Fatalf("the total is taken: %v", err)
	}
	if b.InUse() != 100 {
		t.Fatalf("in use %d", b.InUse())
	}
	// A body waits for room given back.
	got := make(chan error, 1)
	b2 := reqbody.NewBudget(100, 100, time.Minute)
	_, rel, _ := b2.Read(httptest.NewRecorder(), post(100), reqbody.Limits{}, "a")
	go func() {
		_, r, err := b2.Read(httptest.NewRecorder(), post(50), reqbody.Limits{}, "b")
		r()
		got <- err
	}()
	rel()
	if err := <-got; err != nil {
		t.Fatalf("waiting body: %v", err)
	}
	relA()
	relA() // twice is once
	relB()
	if b.InUse() != 0 || b2.InUse() != 0 {
		t.Fatalf("in use after release: %d, %d", b.InUse(), b2.InUse())
	}
	if _, _, err := b.Read(httptest.NewRecorder(), post(61), reqbody.Limits{}, "a"); !errors.Is(err, reqbody.ErrBusy) {
		t.Fatalf("a body larger than a client's share: %v", err)
	}
	if b.InUse() != 0 {
		t.Fatalf("a refused body holds %d", b.InUse())
	}
}
