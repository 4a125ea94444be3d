package httpserve_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/subject"
)

// dialFrom opens a connection to addr from the loopback address from
// (127.0.0.1, 127.0.0.2, ...: one machine, several clients).
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Minute}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // against a hang
	return c
}

// get sends a GET on c and returns the status and the body.
func get(c net.Conn, header string) (string, string) {
	return exchange(c, fmt.Sprintf("GET / HTTP/1.1\r\nHost: x\r\n%s\r\n", header))
}

// exchange sends raw on c and returns the answer's status and body.
func exchange(c net.Conn, raw string) (string, string) {
	io.WriteString(c, raw)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "error: " + err.Error(), ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status, strings.TrimSpace(string(b))
}

// whoAmI answers with the client the request's context names.
var whoAmI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, subject.Client(r.Context()))
})

// Connections are bounded per client address and in total; one beyond is
// answered 503 at once, and another client still gets in while one client
// holds all of its own.
func TestConnectionsBounded(t *testing.T) {
	addr := serveWith(t, whoAmI, &httpserve.Options{MaxConns: 3, MaxConnsPerClient: 2})
	a1, a2 := dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)
	for _, c := range []net.Conn{a1, a2} {
		if st, who := get(c, ""); !strings.HasPrefix(st, "200") || who != "addr:127.0.0.1" {
			t.Fatalf("a first connection: %s %q", st, who)
		}
	}
	st, why := get(dialFrom(t, "127.0.0.1", addr), "")
	if !strings.HasPrefix(st, "503") || !strings.Contains(why, "too many connections from your address (2)") {
		t.Fatalf("a third connection of one address: %s %q, want 503", st, why)
	}
	b := dialFrom(t, "127.0.0.2", addr)
	if st, who := get(b, ""); !strings.HasPrefix(st, "200") || who != "addr:127.0.0.2" {
		t.Fatalf("another client while the first holds its share: %s %q", st, who)
	}
	// Every place is taken, and the client holding the most holds only one
	// more than b: b's second connection is refused.
	st, why = get(dialFrom(t, "127.0.0.2", addr), "")
	if !strings.HasPrefix(st, "503") || !strings.Contains(why, "too many connections (3)") {
		t.Fatalf("a fourth connection: %s %q, want 503", st, why)
	}
	a1.Close()
	deadline := time.Now().Add(time.Minute) // against a hang
	for {
		st, _ := get(dialFrom(t, "127.0.0.1", addr), "")
		if strings.HasPrefix(st, "200") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed connection's place was not given back: %s", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// When every place is taken, by clients at many addresses, a client holding
// fewer than the one holding the most still gets in: that client gives up a
// place, a connection that serves no request first, so that nobody can keep
// another out by opening connections from many addresses.
func TestConnectionsSharedWhenFull(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			held <- struct{}{}
			<-release
		}
		fmt.Fprint(w, subject.Client(r.Context()))
	})
	defer close(release)
	addr := serveWith(t, h, &httpserve.Options{MaxConns: 4, MaxConnsPerClient: 3})
	// a: one connection serving a request, then two silent ones; b: one.
	serving := dialFrom(t, "127.0.0.1", addr)
	fmt.Fprintf(serving, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-held
	silent := []net.Conn{dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)}
	if st, who := get(dialFrom(t, "127.0.0.2", addr), ""); !strings.HasPrefix(st, "200") || who != "addr:127.0.0.2" {
		t.Fatalf("b's connection: %s %q", st, who)
	}
	// Full. c and d each take one of a's places: its silent connections.
	for _, from := range []string{"127.0.0.3", "127.0.0.4"} {
		if st, who := get(dialFrom(t, from, addr), ""); !strings.HasPrefix(st, "200") || who != "addr:"+from {
			t.Fatalf("a new client while the server is full: %s %q, want 200", st, who)
		}
	}
	for i, c := range silent {
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("a's silent connection %d is still open (read %d bytes)", i, n)
		}
	}
	// Each holds one now: a fifth client, and a again, are refused.
	for _, from := range []string{"127.0.0.5", "127.0.0.1"} {
		if st, why := get(dialFrom(t, from, addr), ""); !strings.HasPrefix(st, "503") || !strings.Contains(why, "too many connections (4)") {
			t.Fatalf("a connection from %s when everyone holds one: %s %q, want 503", from, st, why)
		}
	}
	// a's request in progress was not cut.
	release <- struct{}{}
	if resp, err := http.ReadResponse(bufio.NewReader(serving), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a's request in progress: %v %v", resp, err)
	}
}

// Behind a trusted proxy, the client is the one the proxy names, the proxy's
// connections are not bounded per address, and each named client's requests
// in progress are.
func TestTrustedProxy(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			held <- struct{}{}
			<-release
		}
		fmt.Fprint(w, subject.Client(r.Context()))
	})
	defer close(release)
	proxies, err := subject.ParseProxies("X-Forwarded-For", "127.0.0.9")
	if err != nil {
		t.Fatal(err)
	}
	addr := serveWith(t, h, &httpserve.Options{MaxConnsPerClient: 1, Proxies: proxies})
	// The proxy holds two connections, one for each of two clients.
	p1, p2 := dialFrom(t, "127.0.0.9", addr), dialFrom(t, "127.0.0.9", addr)
	fmt.Fprintf(p1, "GET /hold HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
	<-held
	if st, who := get(p2, "X-Forwarded-For: 198.51.100.4\r\n"); !strings.HasPrefix(st, "200") || who != "addr:198.51.100.4" {
		t.Fatalf("a second client through the proxy: %s %q", st, who)
	}
	if st, why := get(p2, "X-Forwarded-For: 203.0.113.9\r\n"); !strings.HasPrefix(st, "503") || !strings.Contains(why, "too many requests of yours") {
		t.Fatalf("a second request of a client holding its one: %s %q, want 503", st, why)
	}
	// Anyone else's header is not believed.
	if st, who := get(dialFrom(t, "127.0.0.1", addr), "X-Forwarded-For: 203.0.113.9\r\n"); !strings.HasPrefix(st, "200") || who != "addr:127.0.0.1" {
		t.Fatalf("the header from an untrusted peer: %s %q", st, who)
	}
}

// Bodies in flight are bounded in memory: one client's share taken, its next
// body waits, then is answered 503, while another client's body is served.
func TestBodyBudget(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(string(b), "hold") {
			held <- struct{}{}
			<-release
		}
		fmt.Fprintf(w, "%d", len(b))
	})
	defer close(release)
	addr := serveWith(t, h, &httpserve.Options{MaxBody: 1000, BodyBudget: 2000, BodyBudgetPerClient: 1000, BodyWait: 200 * time.Millisecond})
	post := func(c net.Conn, body string) (string, string) {
		return exchange(c, fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	}
	a := dialFrom(t, "127.0.0.1", addr)
	fmt.Fprintf(a, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nhold%s", strings.Repeat("x", 996))
	<-held
	start := time.Now()
	st, why := post(dialFrom(t, "127.0.0.1", addr), "a small body")
	if !strings.HasPrefix(st, "503") || !strings.Contains(why, "the most one client may") {
		t.Fatalf("a body beyond the client's share: %s %q, want 503", st, why)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Fatalf("refused after %v, before BodyWait", waited)
	}
	if st, n := post(dialFrom(t, "127.0.0.2", addr), strings.Repeat("y", 1000)); !strings.HasPrefix(st, "200") || n != "1000" {
		t.Fatalf("another client's body: %s %q", st, n)
	}
}

func TestFlags(t *testing.T) {
	fs := flagSet()
	f := httpserve.RegisterFlags(fs)
	if err := fs.Parse([]string{"-max-conns", "10", "-proxy-header", "X-Forwarded-For", "-trusted-proxies", "10.0.0.0/8"}); err != nil {
		t.Fatal(err)
	}
	var o httpserve.Options
	if err := f.Apply(&o); err != nil {
		t.Fatal(err)
	}
	if o.MaxConns != 10 || o.MaxConnsPerClient != httpserve.DefaultMaxConnsPerClient || o.Proxies == nil || o.Proxies.Header != "X-Forwarded-For" {
		t.Fatalf("options: %+v", o)
	}
	fs = flagSet()
	f = httpserve.RegisterFlags(fs)
	_ = fs.Parse([]string{"-proxy-header", "X-Forwarded-For"})
	if err := f.Apply(&o); err == nil || !strings.Contains(err.Error(), "without the proxies trusted") {
		t.Fatalf("a header without trusted proxies: %v", err)
	}
}

func flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
