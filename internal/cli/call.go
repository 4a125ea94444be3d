package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/jsonobject"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/internal/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// CallOptions are the options of `mcp-tester call`.
type CallOptions struct {
	IO      *iostreams.IOStreams
	Conn    ConnOptions
	Answers AnswerOptions
	Tool    string
	Args    string
	// NoWait returns the task id of a tool the server runs as a task,
	// instead of waiting for it.
	NoWait bool
	// Format is text or json (--format, or --json).
	Format string
}

func newCallCmd(io *iostreams.IOStreams, runF func(context.Context, *CallOptions) error) *cobra.Command {
	opts := &CallOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "call TOOL [flags]",
		Short: "Call a tool and answer the questions it asks",
		Long: `Call a tool. When the server asks a question (resultType "input_required",
a server-initiated elicitation/create, or a URL-required error), each takes
the first --elicit answer that fits it: one keyed to its key (KEY=...), else
one whose content names only fields the form asks for, or one without
content. So the same answers work on every protocol version, whatever order
the questions come in. A question with no answer left is declined; an answer
no question used is reported on stderr. Each question is printed as an
[ELICIT] line.`,
		Example: `  mcp-tester call deploy -c ./deployer --args '{"service":"auth-service"}' \
      --elicit 'accept:{"environment":"production","confirm":true}'
  mcp-tester call deploy -c ./deployer --args '{"service":"auth-service"}' --elicit decline
  mcp-tester call deploy -u http://127.0.0.1:8080/mcp -H "Authorization: Bearer $TOKEN" --elicit target=cancel`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tool = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCall(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addAnswerFlags(cmd, &opts.Conn, &opts.Answers)
	addRoundsFlag(cmd, &opts.Conn)
	addTasksFlag(cmd, &opts.Conn)
	addRecordFlag(cmd, &opts.Answers, recordAppendUsage)
	addRawFlag(cmd, &opts.Conn)
	cmd.Flags().StringVarP(&opts.Args, "args", "a", "{}", "the tool's arguments as a JSON object")
	addFormatFlag(cmd, &opts.Format, new(bool))
	cmd.Flags().BoolVar(&opts.NoWait, "no-wait", false, "if the server runs the tool as a task, print the task id and return (see mcp-tester tasks)")
	cmd.ValidArgsFunction = completeFromServer(io, &opts.Conn, "tools")
	return cmd
}

func runCall(ctx context.Context, opts *CallOptions) error {
	args, err := parseArgs(opts.Args)
	if err != nil {
		return err
	}
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	if opts.NoWait {
		return startNoWait(ctx, s, opts, args)
	}
	res, asked, err := s.CallTool(ctx, opts.Tool, args, nil)
	if err != nil {
		return err
	}
	opts.Answers.warnUnused(opts.IO, asked.Questions)
	if err := opts.Answers.record("tools/call", opts.Tool, args, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		if err := opts.Conn.printRaw(opts.IO.Out, "tools/call"); err != nil {
			return err
		}
		if res.IsError {
			return &exitError{code: ExitFailed}
		}
		return nil
	}
	return printToolResult(opts.IO.Out, opts.Format, res)
}

// startNoWait calls a tool and, if the server runs it as a task, prints
// the task id instead of waiting.
func startNoWait(ctx context.Context, s *session.Session, opts *CallOptions, args map[string]any) error {
	started, _, err := s.StartTool(ctx, opts.Tool, args, nil)
	if err != nil {
		return err
	}
	if started.Task == nil {
		return printToolResult(opts.IO.Out, opts.Format, started.Result)
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, started.Task)
	}
	fmt.Fprintf(opts.IO.Out, "task %s: %s\n", started.Task.TaskID, started.Task.Status)
	return nil
}

// printToolResult prints a tool's result as text or, with format json, as
// JSON; a result that is an error exits 1.
func printToolResult(w io.Writer, format string, res *mcp.CallToolResult) error {
	if format == "json" {
		if err := printer.JSON(w, res); err != nil {
			return err
		}
	} else {
		printer.ToolResult(w, res)
	}
	if res.IsError {
		return &exitError{code: ExitFailed}
	}
	return nil
}

// parseArgs reads --args: a JSON object, its numbers kept as written.
func parseArgs(text string) (map[string]any, error) {
	if text == "" {
		return map[string]any{}, nil
	}
	m, err := jsonobject.Parse("--args", text, jsonobject.AsWritten)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return m, nil
}
