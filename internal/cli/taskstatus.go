package cli

import (
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
