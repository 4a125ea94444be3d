package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// MaxUnread bounds the answers to a server's own requests
// (elicitation/create, sampling/createMessage, roots/list, ping) that the
// tester has made and the server has not yet taken: over stdio, answers
// waiting to be written to a server's input; over HTTP, answers whose POST
// the server has not answered. A server that keeps sending requests and
// takes no answer would otherwise hold the tester's memory (and, over
// HTTP, a connection an answer) without bound.
const MaxUnread = 64

// ErrServerFlooded is why the tester stopped talking to a server that sent
// MaxUnread requests of its own whose answers it did not take.
var ErrServerFlooded = fmt.Errorf("the server sent %d requests of its own without reading the answers to them; the tester stopped reading from it", MaxUnread)

// inflight keeps the HTTP requests of a Conn under way, so that they can
// be ended: the answers to the server's requests, which the go-sdk sends
// with a context nothing cancels, are ended when the session closes (a
// server that never answers their POSTs would make the close wait for
// ever) and are bounded by MaxUnread; past it every request under way is
// ended and the connection refused (ErrServerFlooded).
type inflight struct {
	refused *refusal
	limit   int

	mu      sync.Mutex
	next    int
	all     map[int]context.CancelFunc
	answers map[int]bool  // the requests of all that no context ends (answers)
	changed chan struct{} // closed, and replaced, when an answer ends
	flooded bool
	// ended is set once the session's close has ended the answers under
	// way (endAnswers): an answer whose POST starts after that is refused
	// at once, as nothing would end it (the close waits for it for ever).
	ended bool
}

// errAnswersEnded is why an answer to a server's request is not sent: the
// session is closing, and has ended the answers under way.
var errAnswersEnded = errors.New("the session is closing: the answer was not sent")

func newInflight(refused *refusal, limit int) *inflight {
	return &inflight{refused: refused, limit: limit, all: map[int]context.CancelFunc{}, answers: map[int]bool{}, changed: make(chan struct{})}
}

// AnswerGrace is how long closing a session waits for the answers to a
// server's requests still under way (see [Conn.EndAnswers]): a server that
// takes them answers their POSTs at once; past it they are ended.
const AnswerGrace = 10 * time.Second

// start registers r, and returns it with a context that ending the
// requests under way ends, and the function that unregisters it. It
// refuses r when the flood bound is reached.
func (f *inflight) start(r *http.Request) (*http.Request, func(), error) {
	answer := r.Method == http.MethodPost && r.Context().Done() == nil
	ctx, cancel := context.WithCancel(r.Context())
	f.mu.Lock()
	if f.flooded {
		f.mu.Unlock()
		cancel()
		return nil, nil, ErrServerFlooded
	}
	if answer && f.ended {
		f.mu.Unlock()
		cancel()
		return nil, nil, errAnswersEnded
	}
	id := f.next
	f.next++
	f.all[id] = cancel
	if answer {
		f.answers[id] = true
		if len(f.answers) > f.limit {
			// One more than the bound: every request under way ends,
			// the call waiting for the server's answer too.
			f.flooded = true
			cancels := f.takeAll()
			f.mu.Unlock()
			f.refused.note(ErrServerFlooded)
			for _, c := range cancels {
				c()
			}
			return nil, nil, ErrServerFlooded
		}
	}
	f.mu.Unlock()
	var once sync.Once
	done := func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.all, id)
			if f.answers[id] {
				delete(f.answers, id)
				close(f.changed)
				f.changed = make(chan struct{})
			}
			f.mu.Unlock()
			cancel()
		})
	}
	return r.WithContext(ctx), done, nil
}

// takeAll removes every request under way and returns their cancels;
// f.mu is held.
func (f *inflight) takeAll() []context.CancelFunc {
	cancels := make([]context.CancelFunc, 0, len(f.all))
	for id, c := range f.all {
		cancels = append(cancels, c)
		delete(f.all, id)
		delete(f.answers, id)
	}
	return cancels
}

// endAnswers waits up to grace for the answers under way to be taken, then
// ends those left (their POSTs fail at once).
func (f *inflight) endAnswers(grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for waiting := true; waiting; {
		f.mu.Lock()
		if len(f.answers) == 0 {
			f.ended = true
			f.mu.Unlock()
			return
		}
		changed := f.changed
		f.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			waiting = false
		}
	}
	f.mu.Lock()
	f.ended = true
	var cancels []context.CancelFunc
	for id := range f.answers {
		cancels = append(cancels, f.all[id])
		delete(f.all, id)
		delete(f.answers, id)
	}
	f.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// doneBody unregisters its request once the body is closed.
type doneBody struct {
	io.ReadCloser
	done func()
}

func (b *doneBody) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}
