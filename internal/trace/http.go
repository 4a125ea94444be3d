package trace

import (
	"net/http"
	"sort"

	"github.com/askback/askback/internal/credential"
)

// KindHTTP is the kind of an Event that records one HTTP exchange.
const KindHTTP = "http"

// RoundTripper returns base (http.DefaultTransport when nil) with every
// HTTP exchange recorded as a KindHTTP event: method, URL (credentials
// hidden), status, the headers both ways (credential headers hidden,
// unless Options.ShowSecrets) and
// the time to the response headers. Bodies are not recorded: the JSON-RPC
// messages they carry are recorded by Transport or Observe.
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
		"url":     t.rec.redactURL(req.URL.String()),
		"request": t.rec.headerLines(req.Header),
	}
	if err != nil {
		info["error"] = err.Error()
	} else {
		info["status"] = resp.StatusCode
		info["response"] = t.rec.headerLines(resp.Header)
	}
	l := ms(end.Sub(begin))
	t.rec.emit(Event{Dir: Out, Kind: KindHTTP, Latency: &l, Info: info}, end)
	return resp, err
}

// headerLines renders headers as sorted "Name: value" lines, credentials
// hidden (unless ShowSecrets) and session ids shown by their length.
func (r *Recorder) headerLines(h http.Header) []string {
	var lines []string
	for name, vs := range h {
		for _, v := range vs {
			lines = append(lines, name+": "+v)
		}
	}
	sort.Strings(lines)
	if r.opts.ShowSecrets {
		return lines
	}
	return RedactHeaders(lines)
}

func (r *Recorder) redactURL(u string) string {
	if r.opts.ShowSecrets {
		return u
	}
	return credential.RedactURL(u)
}
