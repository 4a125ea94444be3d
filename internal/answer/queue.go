package answer

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Queue hands out scripted answers in order. A spec with a key goes to the
// question with that key; a spec without one goes to the next question
// that no keyed spec claims. When nothing fits it returns ErrNoAnswer.
type Queue struct {
	mu    sync.Mutex
	specs []Spec
	used  []bool
}

// NewQueue returns a queue holding specs, in order.
func NewQueue(specs ...Spec) *Queue {
	q := &Queue{}
	for _, s := range specs {
		q.Push(s)
	}
	return q
}

// Push adds a spec at the end.
func (q *Queue) Push(s Spec) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.specs = append(q.specs, s)
	q.used = append(q.used, false)
}

// Answer takes the spec for question qu out of the queue.
func (q *Queue) Answer(_ context.Context, qu *Question) (*mcp.ElicitResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pick := -1
	for i, s := range q.specs {
		if !q.used[i] && s.Key != "" && s.Key == qu.Key {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i, s := range q.specs {
			if !q.used[i] && s.Key == "" {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return nil, ErrNoAnswer
	}
	q.used[pick] = true
	return q.specs[pick].Result(), nil
}

// Unused returns the specs nobody asked for, in order, each with its Origin.
func (q *Queue) Unused() []Spec {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []Spec
	for i, s := range q.specs {
		if !q.used[i] {
			out = append(out, s)
		}
	}
	return out
}

// Reset drops every spec.
func (q *Queue) Reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.specs, q.used = nil, nil
}
