package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/spf13/cobra"
)

func newTasksCancelCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	cmd, _ := newTaskCmd(ios, &cobra.Command{
		Use:     "cancel TASK-ID",
		Short:   "Cancel a task",
		Example: `  mcp-tester tasks cancel 3f9c… -u http://127.0.0.1:8080/mcp`,
	}, runTasksCancel, runF)
	return cmd
}

func runTasksCancel(ctx context.Context, opts *TasksOptions) error {
	return opts.withTasks(ctx, func(tc *taskclient.Client) error {
		if err := tc.Cancel(ctx, opts.ID); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "task %s: cancel requested\n", opts.ID)
		return nil
	})
}
