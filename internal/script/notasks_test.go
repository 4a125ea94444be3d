package script

import (
	"context"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/answer"
)

// noTasksFake is the task fake in a session opened without the tasks
// extension: its task commands fail as a SessionConn's do.
type noTasksFake struct{ *taskFake }

func (f noTasksFake) tasksOff(what string) error {
	return (&SessionConn{noTasks: true}).tasksOn(what)
}

func (f noTasksFake) GetTask(context.Context, string) (*Outcome, error) {
	return nil, f.tasksOff("tasks/get SOME-ID")
}

func (f noTasksFake) CancelTask(context.Context, string) error {
	return f.tasksOff("tasks/cancel SOME-ID")
}

func (f noTasksFake) WaitTask(context.Context, string, []answer.Spec) (*Outcome, error) {
	return nil, f.tasksOff("waiting for task SOME-ID")
}

// TestNoTasksNamesTheWayOn: a task command in a session without the
// tasks extension fails the run (expect_error does not hide it), saying
// why and the way on as the Go API does, or as RunOptions.NoTasks says
// (a command line's flag).
func TestNoTasksNamesTheWayOn(t *testing.T) {
	connect := func(ctx context.Context) (Conn, error) {
		c, err := fakeConnect()(ctx)
		if err != nil {
			return nil, err
		}
		return noTasksFake{c.(*taskFake)}, nil
	}
	const flags = "(--no-tasks was given); run without --no-tasks to drive tasks"
	for _, c := range []struct {
		noTasks, want string
	}{
		{"", "the session does not declare the tasks extension (session.Options.Tasks was false); set session.Options.Tasks to drive tasks"},
		{flags, "the session does not declare the tasks extension " + flags},
	} {
		rep, out := runText(t, "n.mcp", "expect_error get_task SOME-ID\ncancel_task SOME-ID\nwait_task SOME-ID\n", RunOptions{Connect: connect, NoTasks: c.noTasks})
		for _, want := range []string{
			"✗ expect_error get_task SOME-ID (line 1)\n      tasks/get SOME-ID: " + c.want + "\n",
			"✗ cancel_task SOME-ID (line 2)\n      tasks/cancel SOME-ID: " + c.want + "\n",
			"✗ wait_task SOME-ID (line 3)\n      waiting for task SOME-ID: " + c.want + "\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("NoTasks %q: the report lacks\n%s\ngot:\n%s", c.noTasks, want, out)
			}
		}
		if rep.ExitCode() == ExitOK {
			t.Errorf("NoTasks %q: the run passed:\n%s", c.noTasks, out)
		}
	}
}
