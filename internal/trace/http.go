package trace

import (
	"fmt"
	"net/http"
	"sort"
)

// KindHTTP is the kind of an Event that records one HTTP exchange.
const KindHTTP = "http"

// RoundTripper returns base (http.DefaultTransport when nil) with every
// HTTP exchange recorded as a KindHTTP event: method, URL (credentials
// hidden), status, the headers both ways (credential headers hidden) and
// the time to the response headers. Bodies are not recorded: the JSON-RPC
// messages they carry are recorded by Transport or Middleware.
func (r *Recorder) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{rec: r, base: base}
}

type roundTripper struct {
	rec  *Recorder
	base http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	begin := t.rec.opts.Now()
	resp, err := t.base.RoundTrip(req)
	end := t.rec.opts.Now()
	info := map[string]any{
		"method":  req.Method,
		"url":     RedactURL(req.URL.String()),
		"request": headerLines(req.Header),
	}
	if err != nil {
		info["error"] = err.Error()
	} else {
		info["status"] = resp.StatusCode
		info["response"] = headerLines(resp.Header)
	}
	l := ms(end.Sub(begin))
	t.rec.emit(Event{Dir: Out, Kind: KindHTTP, Latency: &l, Info: info}, end)
	return resp, err
}

// headerLines renders headers as sorted "Name: value" lines, credentials
// hidden and session ids shown by their length.
func headerLines(h http.Header) []string {
	var lines []string
	for name, vs := range h {
		for _, v := range vs {
			if http.CanonicalHeaderKey(name) == "Mcp-Session-Id" {
				// Whoever holds a session id may speak in that session.
				v = fmt.Sprintf("[session id: %d bytes]", len(v))
			}
			lines = append(lines, name+": "+v)
		}
	}
	sort.Strings(lines)
	return RedactHeaders(lines)
}
