package audit

import (
	"context"
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
}

// open starts a probe session with the given capabilities against t. The
// probe answers the server's requests itself (serverRequests, outermost)
// and records every request and response on the wire.
func (a *auditor) open(ctx context.Context, caps capSet, t *target.Target) (*probe, error) {
	p := &probe{rec: newRecorder(), caps: caps}
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
	p.asked, p.others = nil, nil
}

// takeAsked returns and forgets the server-initiated questions so far.
func (p *probe) takeAsked() ([]*mcp.ElicitParams, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, o := p.asked, p.others
	p.asked, p.others = nil, nil
	return a, o
}

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
			p.asked = append(p.asked, params)
			n := len(p.asked)
			pol := p.policy
			p.mu.Unlock()
			if pol == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the client declared no elicitation"}
			}
			return pol(params, n)
		case "sampling/createMessage", "roots/list":
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
