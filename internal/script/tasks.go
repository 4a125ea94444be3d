package script

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/platform/sleep"
)

// taskRef is the task the task commands act on when given no id: the last
// one a command started or read.
type taskRef struct {
	id        string
	name      string // the command that named it
	line      int
	cancelled bool // cancel_task was sent for it
}

// The polling of get_task: it waits while the task is working (or, once
// cancelled, until it ends), with intervals doubling from the first to the
// last, at most maxTaskPolls requests and never past the step's time limit.
const (
	firstTaskPoll = 10 * time.Millisecond
	lastTaskPoll  = 200 * time.Millisecond
	maxTaskPolls  = 500
)

// taskConn returns the Conn as a TaskConn, or a script error when it
// cannot drive tasks.
func (r *runner) taskConn(c *command) (TaskConn, error) {
	tc, ok := r.conn.(TaskConn)
	if !ok {
		return nil, &scriptError{fmt.Errorf("%s needs a connection that drives tasks; this one (%T) does not", c.def.name, r.conn)}
	}
	return tc, nil
}

// taskID is the id a task command acts on: its argument, or the
// remembered task.
func (r *runner) taskID(c *command) (string, error) {
	if len(c.args) > 0 {
		id, err := c.args[0].value(r.vars)
		if err == nil && id == "" {
			err = fmt.Errorf("the task id of %s is empty", c.def.name)
		}
		return id, err
	}
	if r.task == nil {
		return "", fmt.Errorf("%s has no task to act on: no start_tool or call_tool before it ran as a task; start one with start_tool, or give the task id", c.def.name)
	}
	return r.task.id, nil
}

// remember records the task a command reported, for the task commands that
// follow.
func (r *runner) remember(c *command, out *Outcome) {
	if out == nil || out.Task == nil || out.Task.ID == "" {
		if c.def.callsTool && !c.def.waits && out != nil && out.Result != nil {
			r.task = nil // start_tool answered directly: there is no task to follow
		}
		return
	}
	if r.task == nil || r.task.id != out.Task.ID {
		r.task = &taskRef{id: out.Task.ID, name: c.def.name, line: c.line}
	}
	if c.def.cancels {
		r.task.cancelled = true
	}
}

// reportsTask reports whether c reports a task's status.
func reportsTask(c *cmd) bool { return c.reportsTask }

// taskTarget is the connection and the task id of a task command.
func (r *runner) taskTarget(c *command) (TaskConn, string, error) {
	tc, err := r.taskConn(c)
	if err != nil {
		return nil, "", err
	}
	id, err := r.taskID(c)
	if err != nil {
		return nil, "", &scriptError{err}
	}
	return tc, id, nil
}

// sendGetTask runs get_task, which asks nothing: queued answers wait for
// the next asking command.
func sendGetTask(r *runner, ctx context.Context, c *command, _ []answer.Spec) (*Outcome, error) {
	tc, id, err := r.taskTarget(c)
	if err != nil {
		return nil, err
	}
	return r.getTask(ctx, tc, id)
}

// sendCancelTask runs cancel_task, which asks nothing either.
func sendCancelTask(r *runner, ctx context.Context, c *command, _ []answer.Spec) (*Outcome, error) {
	tc, id, err := r.taskTarget(c)
	if err != nil {
		return nil, err
	}
	if err := tc.CancelTask(ctx, id); err != nil {
		return &Outcome{Task: &TaskState{ID: id}}, err
	}
	return &Outcome{Task: &TaskState{ID: id}, Raw: []byte("{}")}, nil
}

// sendWaitTask runs wait_task: the asking command of a task started
// earlier.
func sendWaitTask(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error) {
	id, err := r.taskID(c)
	if err != nil {
		return nil, &scriptError{err}
	}
	tc, err := r.taskConn(c)
	if err != nil {
		return nil, err
	}
	return tc.WaitTask(ctx, id, answers)
}

// getTask reads a task's state, polling while it is settling: working, or
// cancelled by the script but not ended yet. When the step's time runs out
// it reports the last state read.
func (r *runner) getTask(ctx context.Context, tc TaskConn, id string) (*Outcome, error) {
	cancelled := r.task != nil && r.task.id == id && r.task.cancelled
	interval := firstTaskPoll
	var last *Outcome
	for poll := 1; ; poll++ {
		out, err := tc.GetTask(ctx, id)
		if err != nil {
			if last != nil && ctx.Err() != nil {
				return last, nil
			}
			return out, err
		}
		last = out
		if out.Task == nil || !settling(out.Task.Status, cancelled) || poll >= maxTaskPolls {
			return last, nil
		}
		if sleep.For(ctx, interval) != nil {
			return last, nil
		}
		interval = min(2*interval, lastTaskPoll)
	}
}

// settling reports whether get_task should look again.
func settling(status string, cancelled bool) bool {
	if status == "working" {
		return true
	}
	return cancelled && status != "completed" && status != "failed" && status != "cancelled"
}

// taskNote is the line a task command notes in the report: the task's id
// and state.
func (l *last) taskNote() string {
	t := l.outcome.Task
	if t == nil {
		return ""
	}
	if l.cmd.cancels {
		if l.err != nil {
			return ""
		}
		return "cancel requested for task " + t.ID
	}
	if t.Status == "" {
		return ""
	}
	s := fmt.Sprintf("task %s: %s", t.ID, t.Status)
	if t.StatusMessage != "" {
		s += " – " + t.StatusMessage
	}
	return s
}

func joinNotes(notes []string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "\n")
}

// checkTask runs assert_task_status against the last command.
func (r *runner) checkTask(want string, l *last) *failure {
	t := l.outcome.Task
	expected := "task status " + want
	if t == nil {
		switch {
		case l.err != nil:
			return &failure{msg: fmt.Sprintf("%s (line %d) failed before any task started: %v", l.cmd.name, l.line, l.err), expected: expected, actual: "no task"}
		case l.cmd.callsTool:
			return &failure{msg: fmt.Sprintf("%s (line %d) did not run as a task: the server answered directly (a tool runs as a task only when the server makes it one and the tester declares the tasks extension)", l.cmd.name, l.line), expected: expected, actual: "a direct result", response: true}
		default:
			return &failure{msg: fmt.Sprintf("%s (line %d) did not run as a task: only %s report one", l.cmd.name, l.line, commandsWhere(reportsTask, "and")), expected: expected, actual: "no task"}
		}
	}
	if t.Status == "" {
		return &failure{msg: fmt.Sprintf("%s (line %d) does not report the status of task %s; run get_task to read it", l.cmd.name, l.line, t.ID), expected: expected, actual: "no status"}
	}
	if t.Status != want {
		actual := t.Status
		if t.StatusMessage != "" {
			actual += " – " + t.StatusMessage
		}
		verb := "is"
		if l.cmd.waits {
			verb = "ended"
		}
		return &failure{msg: fmt.Sprintf("task %s of %s (line %d) %s %s", t.ID, l.cmd.name, l.line, verb, t.Status), expected: expected, actual: actual,
			fix: &fix{arg: 0, text: t.Status}}
	}
	return nil
}
