package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

func newTasksCancelCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	cmd, _ := newTaskCmd(ios, &cobra.Command{
		Use:   "cancel TASK-ID",
		Short: "Cancel a task",
		Example: `  bin/deployer -http 127.0.0.1:8080 &
  TASK=$(mcp-tester call rollout -u http://127.0.0.1:8080/mcp --args '{"service":"web","version":"1.0.0"}' \
      --no-wait --format json | jq -r .task.taskId)
  mcp-tester tasks cancel "$TASK" -u http://127.0.0.1:8080/mcp`,
	}, runTasksCancel, runF)
	return cmd
}

func runTasksCancel(ctx context.Context, opts *TasksOptions) error {
	s, err := opts.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.CancelTask(ctx, opts.ID); err != nil {
		return err
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, map[string]any{"taskId": opts.ID, "cancelRequested": true})
	}
	fmt.Fprintf(opts.IO.Out, "task %s: cancel requested\n", termsafe.Line(opts.ID))
	return nil
}
