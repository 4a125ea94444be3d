package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/spf13/cobra"
)

// taskStatusPrinter shows a task's status on stderr as it changes: one
// live line that is rewritten at a terminal, plain lines otherwise.
func taskStatusPrinter(io *iostreams.IOStreams) func(taskclient.Update) {
	var mu sync.Mutex
	return func(u taskclient.Update) {
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf("task %s: %s", u.TaskID, u.Status)
		if u.StatusMessage != "" {
			line += " – " + u.StatusMessage
		}
		if io.IsStderrTTY() {
			end := ""
			switch u.Status {
			case "completed", "failed", "cancelled", "input_required":
				end = "\n"
			}
			fmt.Fprintf(io.ErrOut, "\r\033[K%s%s", line, end)
			return
		}
		fmt.Fprintln(io.ErrOut, line)
	}
}

// TaskOptions are the options of `mcp-tester tasks get|cancel|wait`.
type TaskOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
}

func newTasksCmd(io *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Look at, wait for and cancel a server's tasks",
		Long: `Tools that run as tasks (the io.modelcontextprotocol/tasks extension) return a
task id at once; "mcp-tester call --no-wait" prints it. These commands look at
such a task, wait for it (answering its questions), or cancel it. The
extension has no list: a task is known by its id only.`,
	}
	get := func() *cobra.Command {
		opts := &TaskOptions{IO: io}
		c := &cobra.Command{
			Use:     "get TASK-ID",
			Short:   "Show a task's status, its pending questions or its result",
			Example: `  mcp-tester tasks get 3f9c… -u http://127.0.0.1:8080/mcp`,
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return opts.withTasks(cmd.Context(), nil, func(tc *taskclient.Client) error {
					res, err := tc.Get(cmd.Context(), args[0])
					if err != nil {
						return err
					}
					return printer.JSON(io.Out, res)
				})
			},
		}
		addConnFlags(c, &opts.Conn)
		return c
	}()
	wait := func() *cobra.Command {
		opts := &TaskOptions{IO: io}
		c := &cobra.Command{
			Use:     "wait TASK-ID",
			Short:   "Wait for a task to end, answering its questions, and print its result",
			Example: `  mcp-tester tasks wait 3f9c… -u http://127.0.0.1:8080/mcp --elicit 'accept:{"decision":"continue"}'`,
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				specs, err := opts.Conn.specs()
				if err != nil {
					return err
				}
				return opts.withTasks(cmd.Context(), answer.NewQueue(specs...), func(tc *taskclient.Client) error {
					res, err := tc.Wait(cmd.Context(), args[0])
					if err != nil {
						return err
					}
					printer.ToolResult(io.Out, res)
					if res.IsError {
						return &exitError{code: ExitFailed}
					}
					return nil
				})
			},
		}
		addConnFlags(c, &opts.Conn)
		addElicitFlag(c, &opts.Conn)
		return c
	}()
	cancel := func() *cobra.Command {
		opts := &TaskOptions{IO: io}
		c := &cobra.Command{
			Use:     "cancel TASK-ID",
			Short:   "Cancel a task",
			Example: `  mcp-tester tasks cancel 3f9c… -u http://127.0.0.1:8080/mcp`,
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return opts.withTasks(cmd.Context(), nil, func(tc *taskclient.Client) error {
					if err := tc.Cancel(cmd.Context(), args[0]); err != nil {
						return err
					}
					fmt.Fprintf(io.Out, "task %s: cancel requested\n", args[0])
					return nil
				})
			},
		}
		addConnFlags(c, &opts.Conn)
		return c
	}()
	cmd.AddCommand(get, wait, cancel)
	return cmd
}

// withTasks opens a session whose questions ans answers and runs f with
// its tasks client.
func (o *TaskOptions) withTasks(ctx context.Context, ans answer.Answerer, f func(*taskclient.Client) error) error {
	s, err := o.Conn.open(ctx, o.IO, ans)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s.Tasks(nil))
}

// startNoWait calls a tool and, if the server runs it as a task, prints
// the task id instead of waiting.
func startNoWait(ctx context.Context, opts *CallOptions, args map[string]any, ans answer.Answerer) error {
	s, err := opts.Conn.open(ctx, opts.IO, ans)
	if err != nil {
		return err
	}
	defer s.Close()
	started, _, err := s.StartTool(ctx, opts.Tool, args, nil)
	if err != nil {
		return err
	}
	if started.Task != nil {
		if opts.Format == "json" {
			return printer.JSON(opts.IO.Out, started.Task)
		}
		fmt.Fprintf(opts.IO.Out, "task %s: %s\n", started.Task.TaskID, started.Task.Status)
		return nil
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, started.Result)
	}
	printer.ToolResult(opts.IO.Out, started.Result)
	if started.Result.IsError {
		return &exitError{code: ExitFailed}
	}
	return nil
}
