package cli

import (
	"context"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/spf13/cobra"
)

func newTasksWaitCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	cmd, opts := newTaskCmd(ios, &cobra.Command{
		Use:     "wait TASK-ID",
		Short:   "Wait for a task to end, answering its questions, and print its result",
		Example: `  mcp-tester tasks wait 3f9c… -u http://127.0.0.1:8080/mcp --elicit 'accept:{"decision":"continue"}'`,
	}, runTasksWait, runF)
	addCapabilityFlags(cmd, &opts.Conn)
	addValidateFlag(cmd, &opts.Conn)
	addElicitFlag(cmd, &opts.Conn)
	return cmd
}

func runTasksWait(ctx context.Context, opts *TasksOptions) error {
	specs, err := opts.Conn.specs()
	if err != nil {
		return err
	}
	return opts.withTasks(ctx, answer.NewQueue(specs...), func(tc *taskclient.Client) error {
		res, err := tc.Wait(ctx, opts.ID)
		if err != nil {
			return err
		}
		printer.ToolResult(opts.IO.Out, res)
		if res.IsError {
			return &exitError{code: ExitFailed}
		}
		return nil
	})
}
