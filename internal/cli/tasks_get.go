package cli

import (
	"context"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/spf13/cobra"
)

func newTasksGetCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	cmd, _ := newTaskCmd(ios, &cobra.Command{
		Use:     "get TASK-ID",
		Short:   "Show a task's status, its pending questions or its result",
		Example: `  mcp-tester tasks get 3f9c… -u http://127.0.0.1:8080/mcp`,
	}, runTasksGet, runF)
	return cmd
}

func runTasksGet(ctx context.Context, opts *TasksOptions) error {
	return opts.withTasks(ctx, func(tc *taskclient.Client) error {
		res, err := tc.Get(ctx, opts.ID)
		if err != nil {
			return err
		}
		return printer.JSON(opts.IO.Out, res)
	})
}
