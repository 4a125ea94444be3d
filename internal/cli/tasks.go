package cli

import (
	"context"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/spf13/cobra"
)

// newTasksCmd groups the commands about a server's tasks.
func newTasksCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Look at, wait for and cancel a server's tasks",
		Long: `Tools that run as tasks (the io.modelcontextprotocol/tasks extension, or the
tasks of protocol 2025-11-25) return a task id at once; "mcp-tester call
--no-wait" prints it. These commands look at such a task, wait for it
(answering its questions), or cancel it. A task is known by its id only; a
server of 2025-11-25 may keep its tasks in the session that created them,
where another session does not find them.`,
	}
	cmd.AddCommand(newTasksListCmd(ios, nil), newTasksGetCmd(ios, nil), newTasksWaitCmd(ios, nil), newTasksCancelCmd(ios, nil))
	return cmd
}

// TasksOptions are the options of `mcp-tester tasks get|cancel`.
type TasksOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	ID     string // the task's id
	Format string // text or json
}

// newTaskCmd builds a tasks subcommand that takes a task id and hands its
// options to runF, or to run when runF is nil.
func newTaskCmd(ios *iostreams.IOStreams, cmd *cobra.Command, run, runF func(context.Context, *TasksOptions) error) (*cobra.Command, *TasksOptions) {
	opts := &TasksOptions{IO: ios}
	cmd.Args = taskIDArg
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		opts.ID = args[0]
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return run(cmd.Context(), opts)
	}
	addConnFlags(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd, opts
}

// open opens the session of a tasks command.
func (o *TasksOptions) open(ctx context.Context) (*session.Session, error) {
	o.Conn.JSON = o.Format == "json"
	return o.Conn.open(ctx, o.IO, nil)
}

// taskIDArg takes one argument, a task id, which may not be empty: an
// empty id names no task, so nothing is sent.
func taskIDArg(cmd *cobra.Command, args []string) error {
	if err := cobra.ExactArgs(1)(cmd, args); err != nil {
		return err
	}
	if strings.TrimSpace(args[0]) == "" {
		return usageErr("the task id is empty: give the id that call --no-wait printed")
	}
	return nil
}
