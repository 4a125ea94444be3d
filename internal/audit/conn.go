package audit

import (
	"context"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/target"
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

func (c capSet) client() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	switch c {
	case capsAll:
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	case capsForms:
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	case capsEmpty:
		caps.Elicitation = &mcp.ElicitationCapabilities{}
	}
	return caps
}

// policy answers a server-initiated elicitation/create (protocol
// 2025-11-25 and older). n counts the questions of the current call, from 1.
type policy func(p *mcp.ElicitParams, n int) (*mcp.ElicitResult, error)

// probe is one client session of the audit.
type probe struct {
	cs   *mcp.ClientSession
	conn *target.Conn
	rec  *recorder
	caps capSet
	// broken is set when a request got no answer: the session is not
	// reused.
	broken  bool
	endLife context.CancelFunc // ends the connection's context

	mu     sync.Mutex
	policy policy
	asked  []*mcp.ElicitParams // server-initiated elicitations in the current call
	others []string            // other server-initiated requests in the current call
}

// open starts a probe session with the given capabilities against t.
func (a *auditor) open(ctx context.Context, caps capSet, t *target.Target) (*probe, error) {
	conn, err := t.Open(a.transport)
	if err != nil {
		return nil, err
	}
	p := &probe{conn: conn, rec: newRecorder(), caps: caps}
	client := mcp.NewClient(&mcp.Implementation{Name: a.opts.ClientName, Version: a.opts.ClientVersion}, &mcp.ClientOptions{
		Capabilities:   caps.client(),
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	client.AddReceivingMiddleware(p.serverRequests)
	client.AddSendingMiddleware(noCache)
	cctx, cancel := target.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	// The connection outlives the time limit on connecting (the SSE
	// transport ties its event stream to the context of Connect).
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	cs, err := client.Connect(cctx, &recordingTransport{inner: target.Outliving(conn.Transport, life), rec: p.rec},
		&mcp.ClientSessionOptions{ProtocolVersion: a.opts.Protocol})
	if err != nil {
		endLife()
		conn.Cleanup()
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s", a.opts.Timeout)
		}
		if tail := conn.StderrTail(); tail != "" {
			err = fmt.Errorf("%w\nthe server's last words on stderr:\n%s", err, tail)
		}
		return nil, fmt.Errorf("connect to %s: %w", t.Describe(), err)
	}
	p.cs, p.endLife = cs, endLife
	return p, nil
}

func (p *probe) close() {
	if p == nil || p.cs == nil {
		return
	}
	_ = p.cs.Close()
	p.endLife()
	p.conn.Cleanup()
}

// protocol is the negotiated protocol version.
func (p *probe) protocol() string {
	if r := p.cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
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
			p.mu.Lock()
			p.others = append(p.others, method)
			p.mu.Unlock()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the client declared no " + method}
		}
		return next(ctx, method, req)
	}
}

// noCache is sending middleware that keeps the SDK from caching a
// resources/read result (it caches by URI when the server gives a TTL,
// whatever the answers and state sent): every probe must reach the server.
func noCache(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ReadResourceResult); ok && r != nil {
			r.TTLMs = 0
		}
		return res, err
	}
}
