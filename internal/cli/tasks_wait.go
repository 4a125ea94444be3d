package cli

import (
	"context"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
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
	addCapabilityFlags(cmd, &opts.Conn)
	addValidateFlag(cmd, &opts.Conn)
	addElicitFlag(cmd, &opts.Answers)
	addRootFlag(cmd, &opts.Conn)
	addHumanFlags(cmd, &opts.Answers)
	addOpenFlag(cmd, &opts.Answers)
	return cmd
}

func runTasksWait(ctx context.Context, opts *TasksWaitOptions) error {
	ans, err := opts.Answers.answerer(opts.IO)
	if err != nil {
		return err
	}
	s, err := opts.Conn.open(ctx, opts.IO, ans)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Tasks(nil).Wait(ctx, opts.ID)
	if err != nil {
		return err
	}
	printer.ToolResult(opts.IO.Out, res)
	if res.IsError {
		return &exitError{code: ExitFailed}
	}
	return nil
}
