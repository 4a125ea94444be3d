package cli

import (
	"fmt"
	"sync"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/termsafe"
	"github.com/askback/askback/tasks/taskclient"
)

// taskStatusPrinter shows a task's status on stderr as it changes: one
// live line that is rewritten at a terminal, plain lines otherwise.
func taskStatusPrinter(io *iostreams.IOStreams) func(taskclient.Update) {
	var mu sync.Mutex
	return func(u taskclient.Update) {
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf("task %s: %s", termsafe.Line(u.TaskID), termsafe.Line(string(u.Status)))
		if u.StatusMessage != "" {
			line += " – " + termsafe.Line(u.StatusMessage)
		}
		if io.IsStderrTTY() {
			end := ""
			switch u.Status {
			case "completed", "failed", "cancelled", "input_required":
				end = "\n"
			}
			// The line is redrawn in place: its own escape sequence goes to
			// the terminal as it is, the server's text in it is neutralised.
			fmt.Fprintf(io.TerminalErr(), "\r\033[K%s%s", line, end)
			return
		}
		fmt.Fprintln(io.ErrOut, line)
	}
}
