package cli

import (
	"context"

	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/cobra"
)

// TasksWaitOptions are the options of `mcp-tester tasks wait`.
type TasksWaitOptions struct {
	IO      *iostreams.IOStreams
	Conn    ConnOptions
	Answers AnswerOptions
	ID      string // the task's id
}

func newTasksWaitCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksWaitOptions) error) *cobra.Command {
	opts := &TasksWaitOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "wait TASK-ID",
		Short: "Wait for a task to end, answering its questions, and print its result",
		Long: `Wait for a task to end and print its result. The questions it asks while it
waits are answered like those of call: the --elicit answers in order, then a
person at the terminal (or with --interactive); a question left over is
declined. Each is printed as an [ELICIT] line.`,
		Example: `  mcp-tester tasks wait 3f9c… -u http://127.0.0.1:8080/mcp --elicit 'accept:{"decision":"continue"}'
  mcp-tester tasks wait 3f9c… -u http://127.0.0.1:8080/mcp --interactive`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTasksWait(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addAnswerFlags(cmd, &opts.Conn, &opts.Answers)
	return cmd
}

func runTasksWait(ctx context.Context, opts *TasksWaitOptions) error {
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Tasks(nil).Wait(ctx, opts.ID)
	if err != nil {
		return err
	}
	return printToolResult(opts.IO.Out, "text", res)
}
