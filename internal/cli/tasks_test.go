package cli

import (
	"context"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

func TestNewTasksCmds(t *testing.T) {
	conn := ConnOptions{URL: "http://127.0.0.1:1/mcp", Transport: "auto", Timeout: 30e9}
	for name, newCmd := range map[string]func(*iostreams.IOStreams, func(context.Context, *TasksOptions) error) *cobra.Command{
		"get": newTasksGetCmd, "cancel": newTasksCancelCmd,
	} {
		t.Run(name, func(t *testing.T) {
			runFlagCases(t, newCmd, []flagCase[TasksOptions]{
				{name: "an id", args: []string{"3f9c", "-u", "http://127.0.0.1:1/mcp"}, want: TasksOptions{ID: "3f9c", Conn: conn, Format: "text"}},
				{name: "json", args: []string{"3f9c", "-u", "http://127.0.0.1:1/mcp", "--format", "json"}, want: TasksOptions{ID: "3f9c", Conn: conn, Format: "json"}},
				{name: "no id", args: []string{"-u", "http://127.0.0.1:1/mcp"}, wantErr: "accepts 1 arg(s), received 0"},
				// The tasks commands need the extension declared.
				{name: "no --no-tasks", args: []string{"3f9c", "--no-tasks"}, wantErr: "unknown flag: --no-tasks"},
				{name: "no --elicit", args: []string{"3f9c", "--elicit", "accept"}, wantErr: "unknown flag: --elicit"},
			})
		})
	}
	t.Run("wait", func(t *testing.T) {
		runFlagCases(t, newTasksWaitCmd, []flagCase[TasksWaitOptions]{
			{name: "an id and answers", args: []string{"3f9c", "-u", "http://127.0.0.1:1/mcp", "--elicit", `accept:{"decision":"continue"}`, "--no-url"},
				want: TasksWaitOptions{ID: "3f9c", Conn: func() ConnOptions { c := conn; c.NoURL = true; return c }(),
					Answers: AnswerOptions{Elicit: []string{`accept:{"decision":"continue"}`}}, Format: "text"}},
			{name: "a person answers", args: []string{"3f9c", "-u", "http://127.0.0.1:1/mcp", "--interactive", "--accessible", "--open"},
				want: TasksWaitOptions{ID: "3f9c", Conn: conn, Answers: AnswerOptions{Interactive: true, Accessible: true, Open: true}, Format: "text"}},
			{name: "strict, json", args: []string{"3f9c", "-u", "http://127.0.0.1:1/mcp", "--strict", "--format", "json"},
				want: TasksWaitOptions{ID: "3f9c", Conn: conn, Answers: AnswerOptions{Strict: true}, Format: "json"}},
			{name: "no --no-tasks", args: []string{"3f9c", "--no-tasks"}, wantErr: "unknown flag: --no-tasks"},
			{name: "no --record", args: []string{"3f9c", "--record", "x.mcp"}, wantErr: "unknown flag: --record"},
		})
	})
}
