package script

import (
	"context"
	"fmt"
	"strings"
	"time"
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
		return nil, &scriptError{fmt.Errorf("%s needs a connection that drives tasks; this one (%T) does not", c.name, r.conn)}
	}
	return tc, nil
}

// taskID is the id a task command acts on: its argument, or the
// remembered task.
func (r *runner) taskID(c *command) (string, error) {
	if len(c.args) > 0 {
		id, err := c.args[0].value(r.vars)
		if err == nil && id == "" {
			err = fmt.Errorf("the task id of %s is empty", c.name)
		}
		return id, err
	}
	if r.task == nil {
		return "", fmt.Errorf("%s has no task to act on: no start_tool or call_tool before it ran as a task; start one with start_tool, or give the task id", c.name)
	}
	return r.task.id, nil
}

// remember records the task a command reported, for the task commands that
// follow.
func (r *runner) remember(name string, line int, out *Outcome) {
	if out == nil || out.Task == nil || out.Task.ID == "" {
		if name == "start_tool" && out != nil && out.Result != nil {
			r.task = nil // answered directly: there is no task to follow
		}
		return
	}
	if r.task == nil || r.task.id != out.Task.ID {
		r.task = &taskRef{id: out.Task.ID, name: name, line: line}
	}
	if name == "cancel_task" {
		r.task.cancelled = true
	}
}

// taskOp runs get_task and cancel_task, which ask nothing: queued answers
// wait for the next asking command.
func (r *runner) taskOp(ctx context.Context, c *command) (*Outcome, error) {
	tc, err := r.taskConn(c)
	if err != nil {
		return nil, err
	}
	id, err := r.taskID(c)
	if err != nil {
		return nil, &scriptError{err}
	}
	if c.name == "cancel_task" {
		if err := tc.CancelTask(ctx, id); err != nil {
			return &Outcome{Task: &TaskState{ID: id}}, err
		}
		return &Outcome{Task: &TaskState{ID: id}, Raw: []byte("{}")}, nil
	}
	return r.getTask(ctx, tc, id)
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
		t := time.NewTimer(interval)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
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
	if l.name == "cancel_task" {
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
			return &failure{msg: fmt.Sprintf("%s (line %d) failed before any task started: %v", l.name, l.line, l.err), expected: expected, actual: "no task"}
		case l.name == "call_tool" || l.name == "start_tool":
			return &failure{msg: fmt.Sprintf("%s (line %d) did not run as a task: the server answered directly (a tool runs as a task only when the server makes it one and the tester declares the tasks extension)", l.name, l.line), expected: expected, actual: "a direct result", response: true}
		default:
			return &failure{msg: fmt.Sprintf("%s (line %d) did not run as a task: only call_tool, start_tool, get_task and wait_task report one", l.name, l.line), expected: expected, actual: "no task"}
		}
	}
	if t.Status == "" {
		return &failure{msg: fmt.Sprintf("%s (line %d) does not report the status of task %s; run get_task to read it", l.name, l.line, t.ID), expected: expected, actual: "no status"}
	}
	if t.Status != want {
		actual := t.Status
		if t.StatusMessage != "" {
			actual += " – " + t.StatusMessage
		}
		verb := "is"
		if l.name == "call_tool" || l.name == "wait_task" {
			verb = "ended"
		}
		return &failure{msg: fmt.Sprintf("task %s of %s (line %d) %s %s", t.ID, l.name, l.line, verb, t.Status), expected: expected, actual: actual}
	}
	return nil
}
