package cli

import (
	"context"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

// TasksWaitOptions are the options of `mcp-tester tasks wait`.
type TasksWaitOptions struct {
	IO      *iostreams.IOStreams
	Conn    ConnOptions
	Answers AnswerOptions
	ID      string // the task's id
	Format  string // text or json
}

func newTasksWaitCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksWaitOptions) error) *cobra.Command {
	opts := &TasksWaitOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "wait TASK-ID",
		Short: "Wait for a task to end, answering its questions, and print its result",
		Long: `Wait for a task to end and print its result. The questions it asks while it
waits are answered like those of call: the --elicit answers in order, then a
person at the terminal (or with --interactive); a question left over is
declined. Each is printed as an [ELICIT] line. The whole wait is bounded by
--timeout (the time a person takes to answer aside), as a call's is: a task
still running when it runs out did not end (exit 1, with its last status;
it may still run on the server), a server that did not answer a poll in
time is unreachable (exit 3).`,
		Example: `  bin/deployer -http 127.0.0.1:8080 &
  TASK=$(mcp-tester call rollout -u http://127.0.0.1:8080/mcp --args '{"service":"web","version":"1.0.0"}' \
      --no-wait --format json | jq -r .task.taskId)
  mcp-tester tasks wait "$TASK" -u http://127.0.0.1:8080/mcp --elicit 'accept:{"decision":"continue"}'`,
		Args: taskIDArg,
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
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runTasksWait(ctx context.Context, opts *TasksWaitOptions) error {
	opts.Conn.JSON = opts.Format == report.JSON
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	opts.Conn.running.reached(opts.Conn.Command != "", s.ProtocolVersion())
	res, asked, err := s.WaitTask(ctx, opts.ID, nil)
	err = opts.Conn.running.taskLeft(ctx, err)
	if err != nil {
		return withAsked(err, asked)
	}
	if err := opts.Answers.printAsked(opts.IO.Out, opts.Format == report.JSON, asked, res, func() { printer.ToolResult(opts.IO.Out, res) }); err != nil {
		return err
	}
	return toolOutcome(res)
}
