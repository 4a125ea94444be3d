package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks/taskclient"
)

// maxShown bounds what is shown of a text a server sends again and again
// (a task's status message, a progress or log message): the rest is
// counted, not printed.
const maxShown = 1024

// taskStatusPrinter shows a task's status on stderr as it changes (the
// task client reports no poll that found the task as it was): one live
// line that is rewritten at a terminal, plain lines otherwise. What is
// shown of the server's texts is bounded (maxShown).
func taskStatusPrinter(io *iostreams.IOStreams) func(taskclient.Update) {
	var mu sync.Mutex
	return func(u taskclient.Update) {
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf("task %s: %s", termsafe.Clip(u.TaskID, maxShown), termsafe.Clip(string(u.Status), maxShown))
		if u.StatusMessage != "" {
			line += " – " + termsafe.Clip(u.StatusMessage, maxShown)
		}
		if io.IsStderrTTY() {
			end := ""
			switch u.Status {
			case "completed", "failed", "cancelled", "input_required":
				end = "\n"
			}
			// The line is redrawn in place: its own escape sequence goes to
			// the terminal as it is, the server's text in it is neutralised.
			fmt.Fprintf(io.TerminalErr(), "\r\033[K%s%s", io.Hide(line), end)
			return
		}
		fmt.Fprintln(io.ErrOut, line)
	}
}

// runningTask remembers the task a session last saw running: a command
// interrupted while it waits leaves that task running on the server, and
// says which (taskLeft).
type runningTask struct {
	mu sync.Mutex
	id string // "" when no task runs
	// command and protocol say whether a later command may reach the
	// task (a server the command started, a session of 2025-11-25): see
	// laterReach.
	command  bool
	protocol string
}

// reached notes how the command reached its server: one it started (-c)
// or not, and the protocol its session speaks.
func (t *runningTask) reached(command bool, protocol string) {
	t.mu.Lock()
	t.command, t.protocol = command, protocol
	t.mu.Unlock()
}

// observe returns next, which also records each task's status in t.
func (t *runningTask) observe(next func(taskclient.Update)) func(taskclient.Update) {
	return func(u taskclient.Update) {
		t.mu.Lock()
		switch {
		case !u.Status.Terminal():
			t.id = u.TaskID
		case t.id == u.TaskID:
			t.id = ""
		}
		t.mu.Unlock()
		next(u)
	}
}

// taskLeft is err, the error of a command interrupted (ctx done) while a
// task ran, as a *taskLeftError naming the task; err itself otherwise (and
// when t is nil: no session was opened).
func (t *runningTask) taskLeft(ctx context.Context, err error) error {
	if t == nil {
		return err
	}
	t.mu.Lock()
	id, command, protocol := t.id, t.command, t.protocol
	t.mu.Unlock()
	if err == nil || ctx.Err() == nil || id == "" {
		return err
	}
	return &taskLeftError{id: id, err: err, command: command, protocol: protocol}
}

// taskLeftError is the error of a command interrupted while a task ran:
// the task may still run on the server, and Main says how to cancel it.
type taskLeftError struct {
	id       string
	err      error
	command  bool   // the server was the command's own process (-c)
	protocol string // the protocol of the command's session
}

func (e *taskLeftError) Error() string { return e.err.Error() }
func (e *taskLeftError) Unwrap() error { return e.err }

// note says that the task was left running, and how to cancel it; or why
// no later command can (laterReach).
func (e *taskLeftError) note() string {
	id := termsafe.Line(e.id)
	if e.command {
		return fmt.Sprintf("task %s was running when interrupted; the server (-c) was this command's own process and ended with it, and the task with it unless the server keeps its tasks beyond its process", id)
	}
	cancel := fmt.Sprintf("task %s was running when interrupted and may still run on the server: cancel it with mcp-tester tasks cancel %s and the connection flags given here", id, shellWord(id))
	if e.protocol != "" && e.protocol < taskclient.ExtensionEra {
		cancel += fmt.Sprintf(" (and --protocol %s), unless the server keeps tasks per session, as 2025-11-25 allows: this command's session has ended", termsafe.Line(e.protocol))
	}
	return cancel
}
