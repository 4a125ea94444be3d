package audit

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capSet is what a probe's client declares it can be asked.
type capSet int

const (
	capsAll   capSet = iota // elicitation: form and url
	capsForms               // elicitation: {"form": {}}
	capsEmpty               // elicitation: {}, forms only by the spec's default
	capsNone                // no elicitation at all
)

func (c capSet) String() string {
	switch c {
	case capsAll:
		return `elicitation {"form":{},"url":{}}`
	case capsForms:
		return `elicitation {"form":{}}`
	case capsEmpty:
		return `elicitation {} (forms only)`
	}
	return "no elicitation"
}

// traced names what a probe declares in the name of its session in a
// trace: words a line's JSON needs no escape for.
func (c capSet) traced() string {
	switch c {
	case capsAll:
		return "elicitation form, url"
	case capsForms:
		return "elicitation form"
	case capsEmpty:
		return "elicitation {}"
	}
	return "no elicitation"
}

// session is what the probe's client declares.
func (c capSet) session() session.Capabilities {
	switch c {
	case capsAll:
		return session.Capabilities{Form: true, URL: true}
	case capsForms:
		return session.Capabilities{Form: true}
	case capsEmpty:
		return session.Capabilities{Form: true, Bare: true}
	}
	return session.Capabilities{}
}

// policy answers a server-initiated elicitation/create (protocol
// 2025-11-25 and older). n counts the questions of the current call, from 1.
type policy func(p *mcp.ElicitParams, n int) (*mcp.ElicitResult, error)

// probe is one client session of the audit.
type probe struct {
	s    *session.Session
	rec  *recorder
	caps capSet
	// broken is set when a request got no answer: the session is not
	// reused.
	broken bool

	// extra answers sampling and roots, when the probe declares them.
	extra *extraAnswers

	mu     sync.Mutex
	policy policy
	asked  []*mcp.ElicitParams // server-initiated elicitations in the current call
	others []string            // other server-initiated requests in the current call
	// max bounds the server-initiated requests of one call (--max-rounds):
	// the one past it stops the call (stop) and sets keptAsking, and is
	// not kept.
	max        int
	count      int // the server-initiated requests of the current call
	stop       context.CancelCauseFunc
	keptAsking bool
}

// errKeptAsking ends a request whose server asked more than the audit's
// bound allows.
var errKeptAsking = errors.New("the server kept asking")

// open starts a probe session with the given capabilities against t. The
// probe answers the server's requests itself (serverRequests, outermost)
// and records every request and response on the wire.
func (a *auditor) open(ctx context.Context, caps capSet, t *target.Target) (*probe, error) {
	p := &probe{rec: newRecorder(), caps: caps, max: a.opts.MaxRounds}
	if caps != capsNone {
		p.extra = a.extra
	}
	observe := p.rec.observe
	if a.opts.Trace != nil {
		a.sessions++
		if traced := a.opts.Trace(fmt.Sprintf("audit %d: %s", a.sessions, caps.traced())); traced != nil {
			observe = func(sent bool, msg jsonrpc.Message) {
				p.rec.observe(sent, msg)
				traced(sent, msg)
			}
		}
	}
	s, err := session.Open(ctx, session.Options{
		Sampler:        p.extra.sampler(),
		Roots:          p.extra.rootList(),
		Target:         t,
		Protocol:       a.opts.Protocol,
		Hint:           a.opts.Hint,
		Capabilities:   caps.session(),
		Timeout:        a.opts.Timeout,
		ConnectTimeout: a.opts.ConnectTimeout,
		MaxRounds:      a.opts.MaxRounds,
		ClientName:     a.opts.ClientName,
		ClientVersion:  a.opts.ClientVersion,
		Middleware:     []mcp.Middleware{p.serverRequests},
		// A tool that runs only as a task of protocol 2025-11-25 is
		// called as one (the extension of 2026-07-28 is declared only on
		// the calls the session runs as tasks, which the audit's are not).
		Tasks:   true,
		Observe: observe,
	})
	if err != nil {
		return nil, err
	}
	p.s = s
	return p, nil
}

func (p *probe) close() {
	if p == nil || p.s == nil {
		return
	}
	_ = p.s.Close()
}

// setPolicy sets how server-initiated questions are answered from now on
// and forgets the questions of the previous call.
func (p *probe) setPolicy(pol policy) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.policy = pol
	p.asked, p.others, p.keptAsking, p.count = nil, nil, false, 0
}

// begin makes ctx the context of the probe's next request, which a server
// that keeps asking ends (see serverRequests); end releases it.
func (p *probe) begin(ctx context.Context) (context.Context, func()) {
	ctx, stop := context.WithCancelCause(ctx)
	p.mu.Lock()
	p.stop = stop
	p.mu.Unlock()
	return ctx, func() {
		p.mu.Lock()
		p.stop = nil
		p.mu.Unlock()
		stop(context.Canceled)
	}
}

// takeAsked returns and forgets the server-initiated questions so far, and
// whether the server asked past the bound.
func (p *probe) takeAsked() ([]*mcp.ElicitParams, []string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, o, k := p.asked, p.others, p.keptAsking
	p.asked, p.others, p.keptAsking, p.count = nil, nil, false, 0
	return a, o, k
}

// pastBound counts a server-initiated request of the current call and
// reports whether it is past the bound: the call is then stopped.
// Called with p.mu held.
func (p *probe) pastBound() bool {
	p.count++
	if p.max <= 0 || p.count <= p.max {
		return false
	}
	p.keptAsking = true
	if p.stop != nil {
		p.stop(errKeptAsking)
	}
	return true
}

// refusedAsking is the error a request past the bound gets.
var refusedAsking = &jsonrpc.Error{Code: -1, Message: "the client stopped the request: the server asked too many times"}

// serverRequests is receiving middleware that records every request the
// server sends the client and answers elicitations by the probe's policy.
func (p *probe) serverRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "elicitation/create":
			params, _ := req.GetParams().(*mcp.ElicitParams)
			if params == nil {
				params = &mcp.ElicitParams{}
			}
			p.mu.Lock()
			if p.pastBound() {
				p.mu.Unlock()
				return nil, refusedAsking
			}
			p.asked = append(p.asked, params)
			n := len(p.asked)
			pol := p.policy
			p.mu.Unlock()
			if pol == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the client declared no elicitation"}
			}
			return pol(params, n)
		case "sampling/createMessage", "roots/list":
			p.mu.Lock()
			past := p.pastBound()
			p.mu.Unlock()
			if past {
				return nil, refusedAsking
			}
			if p.extra.answers(method) {
				return p.extra.request(ctx, method)
			}
			p.mu.Lock()
			p.others = append(p.others, method)
			p.mu.Unlock()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the client declared no " + method}
		}
		return next(ctx, method, req)
	}
}
