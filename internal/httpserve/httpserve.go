// Package httpserve is the one way the example servers serve HTTP: an
// http.Server whose every connection and request is bounded in time and
// size, so that a client cannot hold the server's connections, goroutines or
// memory by sending slowly, sending much, or sending nothing.
//
//   - headers: at most MaxHeaderBytes, within ReadHeaderTimeout;
//   - a request body: at most MaxBody bytes (413 beyond), all of it within
//     BodyTimeout of the request's start (408 otherwise), read before the
//     handler runs; a response may still take as long as it needs (a call
//     held open, an event stream);
//   - a kept-alive connection with no request: closed after IdleTimeout.
package httpserve

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// Defaults of [Options].
const (
	DefaultMaxBody           = 1 << 20
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// Options bound a server; nil or a zero field means its default.
type Options struct {
	MaxBody           int64
	MaxHeaderBytes    int
	ReadHeaderTimeout time.Duration
	BodyTimeout       time.Duration
	IdleTimeout       time.Duration
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxBody <= 0 {
		v.MaxBody = DefaultMaxBody
	}
	if v.MaxHeaderBytes <= 0 {
		v.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if v.ReadHeaderTimeout <= 0 {
		v.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if v.BodyTimeout <= 0 {
		v.BodyTimeout = DefaultBodyTimeout
	}
	if v.IdleTimeout <= 0 {
		v.IdleTimeout = DefaultIdleTimeout
	}
	return v
}

// Server returns an http.Server serving h with the bounds of o (see the
// package documentation); h is wrapped with [Bodies].
func Server(h http.Handler, o *Options) *http.Server {
	v := o.withDefaults()
	return &http.Server{
		Handler:           Bodies(h, &v),
		ReadHeaderTimeout: v.ReadHeaderTimeout,
		IdleTimeout:       v.IdleTimeout,
		MaxHeaderBytes:    v.MaxHeaderBytes,
	}
}

// Bodies reads each request's body before h runs: at most o.MaxBody bytes
// (413 beyond) within o.BodyTimeout of the request's start (408 otherwise).
// h gets the body from memory. A body read so once is not read again, so a
// handler may be wrapped twice (by its own constructor, for its tests, and
// by [Server]).
func Bodies(h http.Handler, o *Options) http.Handler {
	v := o.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, done := r.Body.(readBody); done || r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		deadline := rc.SetReadDeadline(time.Now().Add(v.BodyTimeout)) == nil
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, v.MaxBody))
		if deadline {
			_ = rc.SetReadDeadline(time.Time{})
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			var netErr net.Error
			switch {
			case errors.As(err, &tooLarge):
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			case errors.As(err, &netErr) && netErr.Timeout():
				w.Header().Set("Connection", "close")
				http.Error(w, "request body too slow", http.StatusRequestTimeout)
			default:
				http.Error(w, "request body unreadable", http.StatusBadRequest)
			}
			return
		}
		r.Body = readBody{bytes.NewReader(body)}
		h.ServeHTTP(w, r)
	})
}

// readBody is a body Bodies has read.
type readBody struct{ *bytes.Reader }

func (readBody) Close() error { return nil }
