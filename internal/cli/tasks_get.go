package cli

import (
	"context"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

func newTasksGetCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	cmd, _ := newTaskCmd(ios, &cobra.Command{
		Use:   "get TASK-ID",
		Short: "Show a task's status, its pending questions or its result",
		Long: `Show what the server says about a task (tasks/get): its status and status
message, the questions it waits for, and its result or error once it ended.
Nothing is answered: "mcp-tester tasks wait" answers the questions.`,
		Example: `  bin/deployer -http 127.0.0.1:8080 &
  TASK=$(mcp-tester call rollout -u http://127.0.0.1:8080/mcp --args '{"service":"web","version":"1.0.0"}' \
      --no-wait --format json | jq -r .task.taskId)
  mcp-tester tasks get "$TASK" -u http://127.0.0.1:8080/mcp
  mcp-tester tasks get "$TASK" -u http://127.0.0.1:8080/mcp --format json`,
	}, runTasksGet, runF)
	return cmd
}

func runTasksGet(ctx context.Context, opts *TasksOptions) error {
	s, err := opts.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.GetTask(ctx, opts.ID)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res)
	}
	printer.Task(opts.IO.Out, res)
	return nil
}
