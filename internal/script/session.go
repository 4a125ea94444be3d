package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionConn adapts an open mcp-tester session to Conn: the answers of a
// command go into an answer.Queue (so defaults and validation are the
// session's), the questions come from the session's exchange log, and the
// answers the queue did not hand out are reported unused, each with its
// Origin.
type SessionConn struct {
	S *session.Session
	// fallback answers what a command's queued answers and replies do not
	// (see SetFallback); by default nobody does, and the session declines.
	fallback Fallback
	// samples are the model replies queued for the command running.
	samples *answer.Samples
	// idle and idleAnswerer answer the questions of a command with no
	// answers or replies of its own (most commands of a long script): an
	// empty queue and the fallback after it, made once.
	idle         *answer.Queue
	idleAnswerer answer.Answerer
	// noTasks is set when the session was opened without the tasks
	// extension: get_task, cancel_task and wait_task then say so.
	noTasks bool
}

func (c *SessionConn) tasksOn(what string) error {
	if c.noTasks {
		return fmt.Errorf("%s: %w", what, ErrNoTasks)
	}
	return nil
}

var (
	_ TaskConn     = (*SessionConn)(nil)
	_ FallbackConn = (*SessionConn)(nil)
)

// SetFallback implements FallbackConn.
func (c *SessionConn) SetFallback(f Fallback) { c.fallback, c.idle, c.idleAnswerer = f, nil, nil }

// SetSamples implements SampleConn.
func (c *SessionConn) SetSamples(q *answer.Samples) { c.samples = q }

// answerer is what answers the questions of one command: its queued
// answers and model replies, then the fallback's.
func (c *SessionConn) answerer(q *answer.Queue) answer.Answerer {
	f := c.fallback
	return answer.Who{Written: q, Samples: []*answer.Samples{c.samples, f.Samples}, Person: f.Person, Strict: f.Strict, Spelling: responseSpelling}.Answerer()
}

// responseSpelling names an elicit_response answer in messages as it is
// written, with its line.
var responseSpelling = answer.Spelling{Answer: func(s answer.Spec) string {
	name := "elicit_response " + termsafe.Line(s.String())
	if s.Origin.Line > 0 {
		name += fmt.Sprintf(" (line %d)", s.Origin.Line)
	}
	return name
}}

// answersOf is the queue of a command's answers, which says which were
// not used, and what answers its questions.
func (c *SessionConn) answersOf(answers []answer.Spec) (*answer.Queue, answer.Answerer) {
	if len(answers) == 0 && c.samples == nil {
		if c.idle == nil {
			c.idle = answer.NewQueue()
			c.idleAnswerer = c.answerer(c.idle)
		}
		return c.idle, c.idleAnswerer
	}
	q := answer.NewQueue(answers...)
	return q, c.answerer(q)
}

// NewSessionConn returns a Conn over s. Closing the Conn closes s.
func NewSessionConn(s *session.Session) *SessionConn { return &SessionConn{S: s} }

// CallTool implements Conn.
func (c *SessionConn) CallTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error) {
	q, who := c.answersOf(answers)
	res, call, err := c.S.CallTool(ctx, name, args, who)
	out := outcomeOf(resultOrNil(res), call, q)
	if call != nil && call.Task != nil {
		out.Task = &TaskState{ID: call.Task.TaskID, Status: string(call.Task.Status), StatusMessage: call.Task.StatusMessage}
	}
	return out, err
}

// StartTool implements TaskConn.
func (c *SessionConn) StartTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error) {
	q, who := c.answersOf(answers)
	started, call, err := c.S.StartTool(ctx, name, args, who)
	var res any
	if started != nil {
		res = resultOrNil(started.Result)
	}
	out := outcomeOf(res, call, q)
	if err == nil && started != nil && started.Task != nil {
		t := started.Task
		out.Task = &TaskState{ID: t.TaskID, Status: string(t.Status), StatusMessage: t.StatusMessage}
		out.Raw, _ = json.Marshal(t)
	}
	return out, err
}

// GetTask implements TaskConn.
func (c *SessionConn) GetTask(ctx context.Context, id string) (*Outcome, error) {
	if err := c.tasksOn("tasks/get " + id); err != nil {
		return nil, err
	}
	g, err := c.S.GetTask(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Task: &TaskState{ID: g.TaskID, Status: string(g.Status), StatusMessage: g.StatusMessage}}
	out.Raw, _ = json.Marshal(g)
	if g.Status == tasks.StatusCompleted && len(g.Result) > 0 {
		var res mcp.CallToolResult
		if err := json.Unmarshal(g.Result, &res); err != nil {
			return out, fmt.Errorf("read the result of task %s: %w", id, err)
		}
		out.Result = &res
	}
	return out, nil
}

// CancelTask implements TaskConn.
func (c *SessionConn) CancelTask(ctx context.Context, id string) error {
	if err := c.tasksOn("tasks/cancel " + id); err != nil {
		return err
	}
	return c.S.CancelTask(ctx, id)
}

// WaitTask implements TaskConn. The questions are those the session logged
// while it waited.
func (c *SessionConn) WaitTask(ctx context.Context, id string, answers []answer.Spec) (*Outcome, error) {
	if err := c.tasksOn("waiting for task " + id); err != nil {
		return nil, err
	}
	q, who := c.answersOf(answers)
	start := c.S.Log().Len()
	res, _, err := c.S.WaitTask(ctx, id, who)
	out := outcomeOf(resultOrNil(res), &session.Call{Questions: c.S.Log().Since(start)}, q)
	out.Task = &TaskState{ID: id}
	switch {
	case err == nil:
		out.Task.Status = string(tasks.StatusCompleted)
	case errors.Is(err, taskclient.ErrCancelled):
		out.Task.Status = string(tasks.StatusCancelled)
	}
	if ctx.Err() == nil {
		// The wait does not say how a task failed, nor the final status
		// message: read them once.
		if g, gerr := c.S.GetTask(ctx, id); gerr == nil {
			out.Task.Status, out.Task.StatusMessage = string(g.Status), g.StatusMessage
		}
	}
	return out, err
}

// GetPrompt implements Conn.
func (c *SessionConn) GetPrompt(ctx context.Context, name string, args map[string]string, answers []answer.Spec) (*Outcome, error) {
	q, who := c.answersOf(answers)
	res, call, err := c.S.GetPrompt(ctx, name, args, who)
	return outcomeOf(resultOrNil(res), call, q), err
}

// ReadResource implements Conn.
func (c *SessionConn) ReadResource(ctx context.Context, uri string, answers []answer.Spec) (*Outcome, error) {
	q, who := c.answersOf(answers)
	res, call, err := c.S.ReadResource(ctx, uri, who)
	return outcomeOf(resultOrNil(res), call, q), err
}

// ListTools implements Conn.
func (c *SessionConn) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	tools, _, err := c.S.ListTools(ctx, session.Pages{All: true})
	return tools, err
}

// SetLogLevel implements LogLevelConn.
func (c *SessionConn) SetLogLevel(ctx context.Context, level string) error {
	return c.S.SetLogLevel(ctx, level)
}

// Ping implements Conn.
func (c *SessionConn) Ping(ctx context.Context) error { return c.S.Ping(ctx) }

// Close implements Conn.
func (c *SessionConn) Close() error { return c.S.Close() }

// resultOrNil turns a typed nil result into a nil interface.
func resultOrNil[T any](r *T) any {
	if r == nil {
		return nil
	}
	return r
}

func outcomeOf(res any, call *session.Call, q *answer.Queue) *Outcome {
	out := &Outcome{Result: res, Unused: q.Unused()}
	if call != nil {
		for _, e := range call.Questions {
			if e.IsElicitation() {
				out.Questions = append(out.Questions, e)
			}
		}
	}
	return out
}

// SessionConnectScript returns a RunOptions.ConnectScript that opens a
// fresh session with opts for each script. opts.Log is ignored: each
// session keeps a log of its own, since a shared one would mix the
// questions of scripts running in parallel. A script with sample_response
// lines declares sampling, and its roots lines are the roots (after those
// of opts).
func SessionConnectScript(opts session.Options) func(ctx context.Context, s *Script) (Conn, error) {
	return func(ctx context.Context, sc *Script) (Conn, error) {
		o := opts
		if sc.Sampling {
			o.DeclareSampling = true // the replies come per command
		}
		if sc.Roots != nil {
			//lint:ignore SA1019 roots are deprecated but still answered
			o.Roots = append(append([]*mcp.Root{}, o.Roots...), sc.Roots...)
		}
		o.Log = nil
		o.KeepListed = true // list gives each item as the server sent it
		if o.Target != nil {
			t := *o.Target
			o.Target = &t
		}
		s, err := session.Open(ctx, o)
		if err != nil {
			return nil, err
		}
		c := NewSessionConn(s)
		c.noTasks = !o.Tasks
		return c, nil
	}
}
