// Package reqbody reads an HTTP request's body once for every layer of the
// project that looks at it before the go-sdk does: the example servers' HTTP
// layer (internal/server/httpserve), endpoint's look for an initialize request,
// tasks.RoutingHeaders' check of Mcp-Name, the connect pages' forms. Each reads
// within one limit of size (413 beyond) and one of time (408 beyond): its own,
// tightened by what an outer layer put on the request's context ([WithLimits]),
// so that no inner layer reads more, or for longer, than the server allows.
// Whoever reads first keeps the bytes on the request ([Read] puts them back as
// its body), and every later layer, and the go-sdk, reads those: nothing is read
// from the connection twice, and nothing is copied.
//
// A [Budget] bounds the memory held by bodies in flight across all requests: a
// body that does not fit waits a little for others to finish, then is refused
// with 503.
package reqbody

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// Defaults of [Limits].
const (
	// DefaultMax is the size limit when neither the reader nor the context
	// gives one: the go-sdk's own (mcp.DefaultMaxRequestBodyBytes).
	DefaultMax = 4 << 20
	// DefaultTimeout is the time limit when neither the reader nor the
	// context gives one.
	DefaultTimeout = 30 * time.Second
)

// Limits bound the reading of one body.
type Limits struct {
	// Max is the most bytes read (DefaultMax when zero or negative); a
	// longer body is refused with [ErrTooLarge].
	Max int64
	// Timeout bounds the time the body takes to arrive, from the start of
	// its reading (DefaultTimeout when zero; negative: no limit here, for a
	// server that bounds reads itself); a slower one is refused with
	// [ErrTooSlow]. It is a read deadline on the connection, set through
	// http.ResponseController: a ResponseWriter that cannot set one leaves
	// the read bounded in size only.
	Timeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Max <= 0 {
		l.Max = DefaultMax
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// tighter returns the smaller of each of l's and o's limits (both with
// their defaults).
func (l Limits) tighter(o Limits) Limits {
	l, o = l.withDefaults(), o.withDefaults()
	l.Max = min(l.Max, o.Max)
	switch {
	case l.Timeout < 0:
		l.Timeout = o.Timeout
	case o.Timeout > 0:
		l.Timeout = min(l.Timeout, o.Timeout)
	}
	return l
}

type limitsKey struct{}

// WithLimits returns r whose context carries l, tightened by the limits its
// context carried already: every layer inside reads within them.
func WithLimits(r *http.Request, l Limits) *http.Request {
	if outer, ok := r.Context().Value(limitsKey{}).(Limits); ok {
		l = l.tighter(outer)
	} else {
		l = l.withDefaults()
	}
	return r.WithContext(context.WithValue(r.Context(), limitsKey{}, l))
}

// LimitsOf returns own tightened by the limits r's context carries: what
// [Read] reads r's body within.
func LimitsOf(r *http.Request, own Limits) Limits {
	if outer, ok := r.Context().Value(limitsKey{}).(Limits); ok {
		return own.tighter(outer)
	}
	return own.withDefaults()
}

// ErrTooLarge is a body longer than its limit (413).
var ErrTooLarge = errors.New("request body too large")

// ErrTooSlow is a body that did not arrive within its time limit (408).
var ErrTooSlow = errors.New("request body too slow")

// ErrBusy is a body the memory budget had no room for in time (503).
var ErrBusy = errors.New("too many request bodies in flight")

// Body is a request body that has been read: its bytes, which every later
// reader gets without touching the connection.
type Body struct {
	*bytes.Reader
	data []byte
}

// Close implements io.Closer; it does nothing.
func (*Body) Close() error { return nil }

// Bytes returns the whole body, however much of it has been read.
func (b *Body) Bytes() []byte { return b.data }

// Read returns r's body. A body read before (by Read or [Budget.Read]) is
// returned as it is, unless longer than own's limit; otherwise it is read
// within own's limits tightened by those on r's context ([LimitsOf]) and put
// back on r, as a [*Body], for whoever reads next. A request without a body
// has an empty one. An error is [ErrTooLarge], [ErrTooSlow] or the
// connection's: [Refuse] answers it.
func Read(w http.ResponseWriter, r *http.Request, own Limits) ([]byte, error) {
	body, _, err := read(w, r, LimitsOf(r, own), nil)
	return body, err
}

func read(w http.ResponseWriter, r *http.Request, l Limits, take func(int64) error) ([]byte, int64, error) {
	if b, ok := r.Body.(*Body); ok {
		if int64(len(b.data)) > l.Max {
			return nil, 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, l.Max)
		}
		return b.data, 0, nil
	}
	if r.Body == nil || r.Body == http.NoBody {
		r.Body = &Body{Reader: bytes.NewReader(nil)}
		return nil, 0, nil
	}
	if r.ContentLength > l.Max {
		return nil, 0, fmt.Errorf("%w: %d bytes, more than %d", ErrTooLarge, r.ContentLength, l.Max)
	}
	if l.Timeout > 0 {
		rc := http.NewResponseController(w)
		// An error means w cannot set deadlines: the read is then bounded
		// in size only.
		if rc.SetReadDeadline(time.Now().Add(l.Timeout)) == nil {
			defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
		}
	}
	known := r.ContentLength
	if known == 0 {
		// A server's request with no body has http.NoBody; a body with a
		// length of 0 was made by hand, and its length is not known.
		known = -1
	}
	body, held, err := readAll(r.Body, known, l.Max, take)
	r.Body.Close()
	if err != nil {
		if isTimeout(err) {
			return nil, held, fmt.Errorf("%w: not received within %v", ErrTooSlow, l.Timeout)
		}
		return nil, held, err
	}
	r.Body = &Body{Reader: bytes.NewReader(body), data: body}
	return body, held, nil
}

// readAll reads src, whose length is known (>= 0) or not (-1), to at most
// max bytes. The buffer grows as the bytes arrive, from a few KiB, doubling:
// a body announced but not sent takes no memory. take, if set, is asked for
// each growth before it is made; readAll returns what it took, on error too.
func readAll(src io.Reader, known, max int64, take func(int64) error) ([]byte, int64, error) {
	var held int64
	grow := func(n int64) error {
		if take == nil || n <= held {
			return nil
		}
		if err := take(n - held); err != nil {
			return err
		}
		held = n
		return nil
	}
	// end is the most the buffer ever holds: the announced length, or one
	// byte over the limit, to see a body go beyond it.
	end := max + 1
	if known >= 0 {
		end = known
	}
	size := min(end, firstStep)
	if err := grow(size); err != nil {
		return nil, held, err
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) && int64(len(buf)) < end {
			next := min(end, 2*int64(cap(buf)))
			if err := grow(next); err != nil {
				return nil, held, err
			}
			nb := make([]byte, len(buf), next)
			copy(nb, buf)
			buf = nb
		}
		var n int
		var err error
		if len(buf) < cap(buf) {
			n, err = src.Read(buf[len(buf):cap(buf)])
		} else {
			// One byte more than the limit, or the announced length has
			// arrived (net/http ends the body there).
			if int64(len(buf)) > max {
				return nil, held, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
			}
			var one [1]byte
			n, err = src.Read(one[:])
			if n > 0 {
				return nil, held, fmt.Errorf("the body is longer than its Content-Length, %d", known)
			}
		}
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > max {
				return nil, held, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
			}
			return buf, held, nil
		}
		if err != nil {
			return nil, held, err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Status is the HTTP status that answers a reading error: 413, 408, 503, or
// 400 for a body that could not be read.
func Status(err error) int {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, ErrTooLarge), errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrTooSlow):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrBusy):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// Refuse answers a reading error: its status ([Status]) and what went wrong;
// a slow body also closes the connection (the rest of it is not waited for)
// and a busy server says when to come back.
func Refuse(w http.ResponseWriter, err error) {
	status := Status(err)
	switch status {
	case http.StatusRequestTimeout:
		w.Header().Set("Connection", "close")
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	}
	http.Error(w, "reading the request body: "+err.Error(), status)
}

// Form reads r's body as an application/x-www-form-urlencoded form, within
// own's limits as [Read] does. Unlike http.Request.ParseForm, it never reads
// more than the limit, nor for longer than the time limit. A body of another
// type is no form: its values are empty, as ParseForm leaves them.
func Form(w http.ResponseWriter, r *http.Request, own Limits) (url.Values, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		return url.Values{}, nil
	}
	body, err := Read(w, r, own)
	if err != nil {
		return nil, err
	}
	vs, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("the form does not parse: %w", err)
	}
	return vs, nil
}

// firstStep is the buffer a body is read into first (all of a body that
// short): the most a body holds before its bytes start to arrive.
const firstStep = 4 << 10

// Budget is the memory that bodies in flight may hold, in total and for one
// client (as subject.Client reads it from the request's context): a body
// takes its bytes as they arrive and gives them back when its request is
// done. Make it with [NewBudget].
//
// The first 4 KiB of every body (all of a small one: most requests) are
// taken without waiting for the total, within the client's own share only:
// clients at many addresses that fill the total with large bodies cannot
// keep everyone else's small requests out. The total may so be passed by 4
// KiB per request being read, which the server bounds by its connections
// (internal/server/httpserve: 4 MiB at 1,024).
type Budget struct {
	total, perClient int64
	wait             time.Duration

	mu      sync.Mutex
	used    int64
	clients map[string]int64 // bytes held by each client that holds some
	changed chan struct{}    // closed and replaced when bytes are given back
}

// NewBudget returns a budget of total bytes, of which one client may hold
// perClient (total when not positive); a body that does not fit waits up to
// wait for room, then is refused with [ErrBusy].
func NewBudget(total, perClient int64, wait time.Duration) *Budget {
	if perClient <= 0 || perClient > total {
		perClient = total
	}
	return &Budget{total: total, perClient: perClient, wait: wait, clients: map[string]int64{}, changed: make(chan struct{})}
}

// InUse returns the bytes taken.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// take takes n bytes for client, waiting until deadline or ctx's end for
// room.
// A first step (the first bytes of a body, at most firstStep) waits for
// room in the client's share only.
func (b *Budget) take(ctx context.Context, client string, n int64, deadline time.Time, first bool) error {
	if n > b.perClient {
		return fmt.Errorf("%w: a body of %d bytes is more than the %d one client's bodies in flight may hold", ErrBusy, n, b.perClient)
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		mine := b.clients[client]
		if (b.used+n <= b.total || first && n <= firstStep) && mine+n <= b.perClient {
			b.used += n
			b.clients[client] = mine + n
			b.mu.Unlock()
			return nil
		}
		why := fmt.Sprintf("the %d bytes that bodies in flight may hold are taken", b.total)
		if mine+n > b.perClient {
			why = fmt.Sprintf("your bodies in flight hold %d bytes, the most one client may", mine)
		}
		changed := b.changed
		b.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%w: %s; try again", ErrBusy, why)
		}
		if timer == nil {
			timer = time.NewTimer(left)
		}
		select {
		case <-changed:
		case <-timer.C:
			timer = nil
			return fmt.Errorf("%w: %s; try again", ErrBusy, why)
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrBusy, ctx.Err())
		}
	}
}

// give gives back n bytes of client's.
func (b *Budget) give(client string, n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if left := b.clients[client] - n; left > 0 {
		b.clients[client] = left
	} else {
		delete(b.clients, client)
	}
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// Read reads r's body as [Read] does, holding its bytes in the budget as
// client's (the name of the client r comes from: subject.Client) until
// release is called (when the request is done); release is never nil. A body
// read before is returned without taking anything.
func (b *Budget) Read(w http.ResponseWriter, r *http.Request, own Limits, client string) (body []byte, release func(), err error) {
	deadline := time.Now().Add(b.wait)
	first := true
	body, held, err := read(w, r, LimitsOf(r, own), func(n int64) error {
		f := first
		first = false
		return b.take(r.Context(), client, n, deadline, f)
	})
	var once sync.Once
	release = func() { once.Do(func() { b.give(client, held) }) }
	if err != nil {
		release()
		return nil, func() {}, err
	}
	return body, release, nil
}
