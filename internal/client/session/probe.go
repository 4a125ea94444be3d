package session

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// probeWatch tells whether the server/discover probe (the go-sdk's first
// request when the session offers protocol 2026-07-28) went unanswered: a
// server of an earlier protocol that ignores the requests it does not
// know never answers it, and a connect that then runs out of time is no
// slow start.
type probeWatch struct {
	mu       sync.Mutex
	id       jsonrpc.ID
	sent     bool
	answered bool
}

// observe is an observer of every message (see Session.observer).
func (p *probeWatch) observe(sent bool, msg jsonrpc.Message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if sent && m.Method == "server/discover" {
			p.id, p.sent, p.answered = m.ID, true, false
		}
	case *jsonrpc.Response:
		if !sent && p.sent && m.ID == p.id {
			p.answered = true
		}
	}
}

// unanswered reports whether the probe was sent and got no answer.
func (p *probeWatch) unanswered() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent && !p.answered
}
