package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/client/session"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// kind classifies a server's answer to one request.
type kind int

const (
	kComplete      kind = iota + 1 // a normal result
	kErrorResult                   // a result with isError
	kRPCError                      // a JSON-RPC error
	kInputRequired                 // resultType "input_required"
	kBroken                        // no answer: the connection failed or timed out
)

func (k kind) String() string {
	switch k {
	case kComplete:
		return "a normal result"
	case kErrorResult:
		return "an isError result"
	case kRPCError:
		return "a JSON-RPC error"
	case kInputRequired:
		return "input_required"
	case kBroken:
		return "no answer"
	}
	return "nothing"
}

// outcome is the server's answer to one request, with the raw exchange.
type outcome struct {
	kind     kind
	requests mcp.InputRequestMap
	state    string
	err      error
	broke    bool // kBroken: the server broke the protocol (not a time limit, not gone)
	ex       *exchange
	// Questions the server asked during the request (2025-11-25 and older):
	// server-initiated elicitations and the URL questions of a -32042 error.
	asked    []*mcp.ElicitParams
	urlError []*mcp.ElicitParams
	others   []string // other server-initiated requests (sampling, roots)
	// leaked is set when a result that is not input_required still carries
	// inputRequests: questions a client of an older protocol cannot see.
	leaked bool
	// keptAsking is set when the server asked with requests of its own
	// (elicitation/create, sampling, roots) past the audit's bound, which
	// stopped the request.
	keptAsking bool
}

// refused reports whether the server did not complete the request as if
// all were well: an error result, a JSON-RPC error, asking again, or no
// answer at all.
func (o outcome) refused() bool { return o.kind != kComplete }

// failed reports an answer that is a failure: an error result, a JSON-RPC
// error, or none at all.
func (o outcome) failed() bool {
	return o.kind == kErrorResult || o.kind == kRPCError || o.kind == kBroken
}

func (o outcome) evidence(what string) Evidence {
	e := Evidence{What: what, Sent: o.ex.request(), Got: o.ex.response()}
	if o.ex == nil {
		e.Got = o.describe()
	}
	return e
}

func (o outcome) describe() string {
	if o.err != nil {
		return fmt.Sprintf("%s (%v)", o.kind, o.err)
	}
	return o.kind.String()
}

// subject is one thing the audit calls: a tool, a prompt or a resource.
type subject struct {
	kind   string // tool, prompt, resource
	name   string // the name, or the URI of a resource
	schema any    // a tool's input schema
	prompt *mcp.Prompt
	args   map[string]any // the arguments to call it with
	// readOnly: a tool whose annotations say readOnlyHint true.
	readOnly bool
	// template is a resource template's URI template; its variables are
	// the arguments.
	template string
	report   *Subject
}

func (s *subject) method() string {
	switch s.kind {
	case "tool":
		return "tools/call"
	case "prompt":
		return "prompts/get"
	}
	return "resources/read"
}

// send sends one request of the subject's method with the given arguments,
// answers and state, and classifies the answer.
func (a *auditor) send(ctx context.Context, p *probe, s *subject, args map[string]any, responses mcp.InputResponseMap, state string) outcome {
	if len(responses) == 0 {
		responses = nil
	}
	var (
		o   outcome
		err error
	)
	ctx, end := p.begin(ctx)
	defer end()
	switch s.kind {
	case "tool":
		o, err = callTool(ctx, p, &mcp.CallToolParams{Name: s.name, Arguments: copyArgs(args), InputResponses: responses, RequestState: state})
	case "prompt":
		o, err = getPrompt(ctx, p, &mcp.GetPromptParams{Name: s.name, Arguments: stringArgs(args), InputResponses: responses, RequestState: state})
	default:
		uri := s.name
		if s.template != "" {
			uri = expand(s.template, args)
		}
		o, err = readResource(ctx, p, &mcp.ReadResourceParams{URI: uri, InputResponses: responses, RequestState: state})
	}
	if err != nil {
		o = failedOutcome(err)
	}
	if o.kind == kBroken {
		p.broken = true
	}
	o.ex = p.rec.last(s.method())
	o.asked, o.others, o.keptAsking = p.takeAsked()
	if o.keptAsking {
		// Stopped by the audit (see probe.serverRequests): whatever the
		// request then ended with is not the server's answer.
		o.kind, o.err, o.broke = kBroken, fmt.Errorf("%w: more than %d requests of its own during one call (--max-rounds)", errKeptAsking, p.max), false
	}
	if o.kind == kComplete || o.kind == kErrorResult {
		o.leaked = carriesInputRequests(o.ex)
	}
	return o
}

// callTool sends one tools/call and classifies its result.
func callTool(ctx context.Context, p *probe, params *mcp.CallToolParams) (outcome, error) {
	res, err := p.s.CallToolOnce(ctx, params)
	switch {
	case err != nil:
		return outcome{}, err
	case res.NeedsInput():
		return outcome{kind: kInputRequired, requests: res.InputRequests, state: res.RequestState}, nil
	case res.IsError:
		return outcome{kind: kErrorResult}, nil
	}
	return outcome{kind: kComplete}, nil
}

// getPrompt sends one prompts/get and classifies its result.
func getPrompt(ctx context.Context, p *probe, params *mcp.GetPromptParams) (outcome, error) {
	res, err := p.s.GetPromptOnce(ctx, params)
	switch {
	case err != nil:
		return outcome{}, err
	case res.NeedsInput():
		return outcome{kind: kInputRequired, requests: res.InputRequests, state: res.RequestState}, nil
	}
	return outcome{kind: kComplete}, nil
}

// readResource sends one resources/read and classifies its result.
func readResource(ctx context.Context, p *probe, params *mcp.ReadResourceParams) (outcome, error) {
	res, err := p.s.ReadResourceOnce(ctx, params)
	switch {
	case err != nil:
		return outcome{}, err
	case res.NeedsInput():
		return outcome{kind: kInputRequired, requests: res.InputRequests, state: res.RequestState}, nil
	}
	return outcome{kind: kComplete}, nil
}

// failedOutcome classifies a request that failed: a JSON-RPC error (with
// the URL questions of a -32042), or no answer at all.
func failedOutcome(err error) outcome {
	o := outcome{kind: kBroken, err: err}
	if se := (*session.Error)(nil); errors.As(err, &se) {
		o.err = se.Err // the report names the request already
		o.broke = se.Kind == session.KindProtocol
	}
	var w *jsonrpc.Error
	if errors.As(err, &w) {
		o.kind = kRPCError
		if w.Code == mcp.CodeURLElicitationRequired {
			o.urlError = urlQuestions(w)
		}
	}
	return o
}

func copyArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	return out
}

func stringArgs(args map[string]any) map[string]string {
	if len(args) == 0 {
		return nil
	}
	out := make(map[string]string, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = strings.TrimSpace(fmt.Sprint(v))
		}
	}
	return out
}

// carriesInputRequests reports whether a raw result has inputRequests.
func carriesInputRequests(ex *exchange) bool {
	if ex == nil || len(ex.Result) == 0 {
		return false
	}
	var r struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	return json.Unmarshal(ex.Result, &r) == nil && len(r.InputRequests) > 0
}

// noAnswerReason says why a call got no answer (kBroken).
func noAnswerReason(o outcome) string {
	if o.err == nil {
		return "no answer"
	}
	var e *session.Error
	if errors.As(o.err, &e) {
		return e.Err.Error()
	}
	return o.err.Error()
}

// protocolBroken is how the call of o broke the protocol (the server's
// fault: a session error of kind protocol), or "" when it ended otherwise
// (no answer in time, the server gone).
func protocolBroken(o outcome) string {
	if !o.broke || o.err == nil {
		return ""
	}
	return o.err.Error()
}
