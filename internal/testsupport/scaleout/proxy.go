package scaleout

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// Proxy is a reverse proxy in front of server instances. By default it
// spreads requests round robin, with no affinity of any kind (no sticky
// sessions), naming each request's client in X-Forwarded-For; [Proxy.Pin] sends every request to one instance until
// [Proxy.Unpin]. It counts the requests each instance received.
type Proxy struct {
	backends []*url.URL
	rp       *httputil.ReverseProxy
	next     atomic.Uint64
	pin      atomic.Int64 // -1: round robin
	hits     []atomic.Int64
}

// NewProxy returns a proxy to the given base URLs ("http://host:port").
func NewProxy(bases ...string) (*Proxy, error) {
	p := &Proxy{hits: make([]atomic.Int64, len(bases))}
	p.pin.Store(-1)
	for _, b := range bases {
		u, err := url.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("proxy backend %q: %w", b, err)
		}
		p.backends = append(p.backends, u)
	}
	if len(p.backends) == 0 {
		return nil, fmt.Errorf("proxy: no backends")
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			k := p.pick()
			p.hits[k].Add(1)
			pr.SetURL(p.backends[k])
			// Names the client in X-Forwarded-For, as a proxy in front of
			// instances does: instances that trust it (-proxy-header,
			// -trusted-proxies) count each client apart.
			pr.SetXForwarded()
		},
		FlushInterval: -1, // stream server-sent events at once
		// A client that hangs up mid-stream is not news.
		ErrorLog: log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "proxy: instance unreachable: "+err.Error(), http.StatusBadGateway)
		},
	}
	return p, nil
}

func (p *Proxy) pick() int {
	if k := p.pin.Load(); k >= 0 {
		return int(k)
	}
	return int((p.next.Add(1) - 1) % uint64(len(p.backends)))
}

// Pin sends every request to instance k (0-based).
func (p *Proxy) Pin(k int) { p.pin.Store(int64(k)) }

// Unpin goes back to round robin.
func (p *Proxy) Unpin() { p.pin.Store(-1) }

// Hits returns how many requests each instance received.
func (p *Proxy) Hits() []int64 {
	out := make([]int64, len(p.hits))
	for k := range p.hits {
		out[k] = p.hits[k].Load()
	}
	return out
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.rp.ServeHTTP(w, r) }
