package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/spf13/cobra"
)

func newTasksListCmd(ios *iostreams.IOStreams, runF func(context.Context, *TasksOptions) error) *cobra.Command {
	opts := &TasksOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tasks a server of protocol 2025-11-25 holds (tasks/list)",
		Long: `List the tasks the server holds for this client (tasks/list, every page): one
line per task, its id, status and status message. tasks/list is a method of
protocol 2025-11-25 that a server offers when it declares capabilities.tasks.list;
the tasks extension of 2026-07-28 has none. A server may keep its tasks in the
session that created them, where a new session finds none.`,
		Example: `  mcp-tester tasks list -c bin/tasks2025
  mcp-tester tasks list -c bin/tasks2025 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTasksList(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runTasksList(ctx context.Context, opts *TasksOptions) error {
	s, err := opts.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.ListTasks(ctx)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		if list == nil {
			list = []*tasks.GetTaskResult{}
		}
		return printer.JSON(opts.IO.Out, map[string]any{"tasks": list})
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "The server holds no task for this session.")
		return nil
	}
	for _, t := range list {
		line := termsafe.Line(t.TaskID) + "  " + termsafe.Line(string(t.Status))
		if t.StatusMessage != "" {
			line += "  " + termsafe.Clip(t.StatusMessage, maxShown)
		}
		fmt.Fprintln(opts.IO.Out, line)
	}
	return nil
}
