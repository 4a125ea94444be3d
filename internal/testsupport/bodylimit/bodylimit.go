// Package bodylimit checks, in tests, that an HTTP endpoint refuses a request
// body over its limit, or one that stops arriving: every example server, and
// every layer of the toolkit that reads a body, bounds what a client may send
// and how long it may take.
package bodylimit

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Refused posts limit+1 bytes to url, with the headers of an MCP request and
// the given extra ones, and fails tb unless the answer is 413.
func Refused(tb testing.TB, url string, limit int, extra http.Header) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bytes.Repeat([]byte("a"), limit+1)))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range extra {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		tb.Fatalf("POST %s with %d bytes: status %d, want 413", url, limit+1, resp.StatusCode)
	}
}

// Stalls sends head (a request's line, headers and the start of a body
// shorter than its Content-Length) to the server at addr and nothing more,
// and fails tb unless the answer is 408 within 15 seconds.
func Stalls(tb testing.TB, addr, head string) {
	tb.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		tb.Fatal(err)
	}
	answered := make(chan *http.Response, 1)
	go func() {
		resp, _ := http.ReadResponse(bufio.NewReader(conn), nil) // nil: the connection ended unanswered
		answered <- resp
	}()
	select {
	case resp := <-answered:
		if resp == nil || resp.StatusCode != http.StatusRequestTimeout {
			tb.Fatalf("a body that stops arriving: %v, want 408", resp)
		}
	case <-time.After(15 * time.Second):
		tb.Fatal("a body that stops arriving was waited for 15 s")
	}
}

// Counting is a request body that counts what is read of it.
type Counting struct {
	r    io.Reader
	read int
}

// NewCounting returns a Counting body of s.
func NewCounting(s string) *Counting { return &Counting{r: bytes.NewReader([]byte(s))} }

// Read implements io.Reader.
func (c *Counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// BytesRead returns how many bytes were read.
func (c *Counting) BytesRead() int { return c.read }

// Close implements io.Closer.
func (c *Counting) Close() error { return nil }
