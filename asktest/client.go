package asktest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is a test's client of one server: one session, open from
// [NewClient] to the end of the test. Its methods fail the test (with
// t.Fatal) when a call cannot end as given, so that a test reads as the
// calls and the checks of their results; like t.Fatal, they belong to the
// test's goroutine. A call made from another goroutine that is still
// running when the test ends fails it.
type Client struct {
	tb     testing.TB
	s      *session.Session
	tr     *tracker
	ctx    context.Context
	cancel context.CancelFunc
}

// NewClient opens a session with the server tg, speaking as opts say (nil:
// the defaults of [Options]), and closes it when the test ends: the test
// then fails if a call or a session of an in-memory server is still
// running. A server that cannot be reached fails the test.
func NewClient(tb testing.TB, tg Target, opts *Options) *Client {
	tb.Helper()
	tr, so := opts.sessionTo(tb, tg)
	ctx, cancel := testContext(tb)
	s, err := session.Open(ctx, so)
	if err != nil {
		cancel()
		for _, l := range tr.left() {
			tb.Errorf("asktest: %s", l)
		}
		tb.Fatalf("asktest: %s", err)
	}
	c := &Client{tb: tb, s: s, tr: tr, ctx: ctx, cancel: cancel}
	tb.Cleanup(c.close)
	return c
}

// close ends the session, and fails the test for what is still running.
func (c *Client) close() {
	c.cancel()
	if err := c.s.Close(); err != nil {
		c.tb.Errorf("asktest: close the session: %v", err)
	}
	for _, l := range c.tr.left() {
		c.tb.Errorf("asktest: %s", l)
	}
}

// Protocol is the protocol version the session speaks.
func (c *Client) Protocol() string { return c.s.ProtocolVersion() }

// Questions returns every question the server asked during the session so
// far, in order, each with the answer it got.
func (c *Client) Questions() []Question { return questionsOf(c.s.Log().Entries()) }

// CallTool calls the tool name with args (a map or a struct, as the tool's
// input JSON) and answers its questions with answers. A server that runs
// it as a task is waited for, its questions answered the same way. A
// result the tool marked isError ends the call with an error, as
// mcp-tester call takes it: it fails the test unless [WantError] was
// given, and then [Result.Err] names it and Tool holds the result.
func (c *Client) CallTool(name string, args any, answers ...Answer) *Result {
	c.tb.Helper()
	return c.call(fmt.Sprintf("CallTool(%q)", name), answers, func(ctx context.Context, who answer.Answerer) (*Result, *session.Call, error) {
		res, call, err := c.s.CallTool(ctx, name, args, who)
		r := &Result{Tool: res}
		if call != nil {
			r.Task = call.Task
		}
		if err == nil && res != nil && res.IsError {
			err = &toolError{name: name, text: r.Text()}
		}
		return r, call, err
	})
}

// toolError is the error of a tool call whose result the tool marked
// isError: how a tool reports that it failed, as mcp-tester call (exit 1)
// and a script's expect_error take it.
type toolError struct {
	name, text string
}

func (e *toolError) Error() string {
	text := "(no text)"
	if e.text != "" {
		text = termsafe.Line(e.text)
	}
	return fmt.Sprintf("tools/call %q: the tool reported an error (isError): %s", e.name, text)
}

// GetPrompt gets the prompt name with args and answers its questions with
// answers.
func (c *Client) GetPrompt(name string, args map[string]string, answers ...Answer) *Result {
	c.tb.Helper()
	return c.call(fmt.Sprintf("GetPrompt(%q)", name), answers, func(ctx context.Context, who answer.Answerer) (*Result, *session.Call, error) {
		res, call, err := c.s.GetPrompt(ctx, name, args, who)
		return &Result{Prompt: res}, call, err
	})
}

// ReadResource reads the resource at uri and answers its questions with
// answers.
func (c *Client) ReadResource(uri string, answers ...Answer) *Result {
	c.tb.Helper()
	return c.call(fmt.Sprintf("ReadResource(%q)", uri), answers, func(ctx context.Context, who answer.Answerer) (*Result, *session.Call, error) {
		res, call, err := c.s.ReadResource(ctx, uri, who)
		return &Result{Resource: res}, call, err
	})
}

// call makes one call with its answers and checks that it ended as given.
func (c *Client) call(label string, answers []Answer, do func(context.Context, answer.Answerer) (*Result, *session.Call, error)) *Result {
	c.tb.Helper()
	g := sortOut(answers)
	if len(g.misuse) > 0 {
		c.tb.Fatalf("%s: %s", label, strings.Join(g.misuse, "; "))
	}
	done := c.tr.start(label)
	r, call, err := do(c.ctx, g.answerer())
	done()
	if call != nil {
		r.Rounds = call.Rounds
		r.Questions = questionsOf(call.Questions)
	}
	switch {
	case g.wantErr && session.OwnMistake(err):
		// A question nobody answered, an answer that does not fit: the
		// test's own mistake, which no WantError expects.
		c.tb.Fatalf("%s: %s%s\n  (WantError expects an error of the server's; this one is the test's own)", label, err, r.unanswered())
	case g.wantErr && err == nil:
		c.tb.Fatalf("%s: no error, want one (WantError); the result:\n%s", label, indent(r.Text()))
	case g.wantErr:
		r.Err = err
	case err != nil:
		c.tb.Fatalf("%s: %s%s", label, err, r.unanswered())
	}
	// An answer no question took fails the test whatever the call ended
	// with: a server that fails before it asks did not take it either.
	if unused := g.unused(r.Questions); len(unused) > 0 {
		ended := ""
		if r.Err != nil {
			ended = "\n  the call ended with the error wanted: " + r.Err.Error()
		}
		c.tb.Errorf("%s: %s\n%s%s", label, strings.Join(unused, "; "), r.asked(), ended)
	}
	return r
}

// Result is how a call ended: its result (Tool, Prompt or Resource, by
// the method), the rounds it took, and the questions asked during it.
type Result struct {
	Tool     *mcp.CallToolResult
	Prompt   *mcp.GetPromptResult
	Resource *mcp.ReadResourceResult
	// Rounds counts the requests of the call (from 1): a 2026-07-28 server
	// that asks once takes two; a 2025-11-25 server asks within one.
	Rounds int
	// Questions are the questions asked during the call, in order, each
	// with the answer it got.
	Questions []Question
	// Task is the last state seen of the task the server ran the call as
	// (the tasks extension), nil when it answered directly.
	Task *taskclient.Update
	// Err is the error the call ended with, given [WantError]: an error
	// of the server's (JSON-RPC), a question it may not ask, ... or a tool
	// result marked isError, which Tool then holds; never a mistake of the
	// test's own, which fails the test.
	Err error
}

// Text is the text of the result: the text content of a tool's result,
// of a prompt's messages or of a resource's contents, one a line.
func (r *Result) Text() string {
	var parts []string
	add := func(c mcp.Content) {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	switch {
	case r.Tool != nil:
		for _, c := range r.Tool.Content {
			add(c)
		}
	case r.Prompt != nil:
		for _, m := range r.Prompt.Messages {
			add(m.Content)
		}
	case r.Resource != nil:
		for _, c := range r.Resource.Contents {
			if c != nil && c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// asked lists the questions of the call for a failure's message.
func (r *Result) asked() string {
	if len(r.Questions) == 0 {
		return "  the server asked no question"
	}
	var b strings.Builder
	b.WriteString("  the questions asked:")
	for _, q := range r.Questions {
		b.WriteString("\n    " + q.String())
	}
	return b.String()
}

// unanswered describes the question a call failed on, if one was left
// without an answer.
func (r *Result) unanswered() string {
	for _, q := range r.Questions {
		if q.Answer == nil && q.Kind != KindSampling && q.Kind != KindRoots {
			return "\n  the question: " + q.String()
		}
	}
	return ""
}

// indent writes text a server sent under a failure's line, neutralised
// (see internal/text/termsafe).
func indent(s string) string {
	if s == "" {
		return "  (no text)"
	}
	return "  " + strings.ReplaceAll(termsafe.Block(s), "\n", "\n  ")
}

// The kinds of a Question.
const (
	KindForm     = "form"     // a form to fill in
	KindURL      = "url"      // a link to open
	KindSampling = "sampling" // a request for a model reply (deprecated)
	KindRoots    = "roots"    // a request for the client's roots (deprecated)
)

// Question is one question a server asked, with the answer it got.
type Question struct {
	// Key is its key in the server's inputRequests (2026-07-28); empty
	// for a question asked with elicitation/create (2025-11-25).
	Key string
	// Round is the round of the call it came in, from 1.
	Round int
	// Via says how it came: "input_required", "elicitation/create",
	// "url-required-error", "task", "sampling/createMessage" or
	// "roots/list".
	Via string
	// Kind is KindForm, KindURL, KindSampling or KindRoots.
	Kind string
	// Message is what the server said to the user; URL the link of a URL
	// question.
	Message, URL string
	// Form is the form asked for, nil for other kinds (and for a schema
	// outside the form subset).
	Form *formschema.Schema
	// Params is the question as it came.
	Params *mcp.ElicitParams
	// Answer is the answer sent, with the form's defaults filled in; nil
	// when none was sent.
	Answer *mcp.ElicitResult
	// Sampling and Reply are a request for a model reply and the reply
	// sent.
	Sampling *mcp.CreateMessageWithToolsParams //lint:ignore SA1019 sampling is deprecated but still answered
	Reply    *mcp.CreateMessageWithToolsResult //lint:ignore SA1019 sampling is deprecated but still answered
}

// String writes the question for a failure's message:
// "target" (round 1, form environment, confirm): "Roll out …" → accept {…}.
func (q Question) String() string {
	var b strings.Builder
	if q.Key != "" {
		fmt.Fprintf(&b, "%q ", q.Key)
	}
	fmt.Fprintf(&b, "(round %d, %s", q.Round, q.Kind)
	if q.Form != nil {
		var names []string
		for _, f := range q.Form.Fields {
			names = append(names, f.Name)
		}
		b.WriteString(" " + strings.Join(names, ", "))
	}
	b.WriteString(")")
	switch q.Kind {
	case KindSampling:
		b.WriteString(": a model reply")
	case KindRoots:
		b.WriteString(": the roots")
	default:
		fmt.Fprintf(&b, ": %q", q.Message)
	}
	if q.URL != "" {
		fmt.Fprintf(&b, " %s", q.URL)
	}
	switch {
	case q.Answer != nil:
		b.WriteString(" → " + q.Answer.Action)
		if len(q.Answer.Content) > 0 {
			b.WriteString(" " + answer.Spec{Action: "accept", Content: q.Answer.Content}.String()[len("accept:"):])
		}
	case q.Reply != nil:
		b.WriteString(" → a reply")
	case q.Kind == KindForm || q.Kind == KindURL:
		b.WriteString(" → no answer")
	}
	return b.String()
}

// questionOf is a question as an answerer sees it.
func questionOf(q *answer.Question) Question {
	out := Question{Key: q.Key, Round: q.Round, Via: q.Via, Kind: q.Mode(), Params: q.Params, Form: q.Form}
	if q.Params != nil {
		out.Message, out.URL = q.Params.Message, q.Params.URL
	}
	return out
}

// questionsOf are the entries of a session's log as questions.
func questionsOf(entries []exchange.Entry) []Question {
	out := make([]Question, 0, len(entries))
	for _, e := range entries {
		q := Question{Key: e.Key, Round: e.Round, Via: e.Via, Params: e.Params, Answer: e.Answer, Sampling: e.Sample, Reply: e.Reply}
		switch e.Asks {
		case exchange.AsksSampling:
			q.Kind = KindSampling
		case exchange.AsksRoots:
			q.Kind = KindRoots
		default:
			q.Kind, q.Message, q.URL = e.Mode(), e.Message(), e.URL()
			if q.Kind == KindForm {
				q.Form, _ = formschema.Parse(e.Schema())
			}
		}
		out = append(out, q)
	}
	return out
}
