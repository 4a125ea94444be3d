package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/toolargs"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
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
no question used fails the call (exit 1), naming it;
--strict fails a question no answer covers. Each question is printed as an
[ELICIT] line.`,
		Example: `  mcp-tester call deploy -c bin/deployer --args '{"service":"auth-service"}' \
      --elicit 'accept:{"environment":"production","confirm":true}'
  mcp-tester call deploy -c bin/deployer --args '{"service":"auth-service"}' --elicit decline --strict
  bin/deployer -http 127.0.0.1:8080 &
  mcp-tester call deploy -u http://127.0.0.1:8080/mcp -H "Authorization: Bearer $TOKEN" \
      --args '{"service":"auth-service"}' --elicit target=cancel --format json`,
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
	addProgressFlag(cmd, &opts.Conn)
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
	opts.Conn.JSON = opts.Format == report.JSON || opts.Conn.Raw
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	if !opts.Conn.NoValidate {
		if err := checkToolCall(ctx, opts, s, args); err != nil {
			return err
		}
	}
	opts.Conn.running.reached(opts.Conn.Command != "", s.ProtocolVersion())
	if opts.NoWait {
		// Interrupted as the task handle came, the call names the task it
		// leaves (the session hears of it then, see taskclient.StartTool).
		return opts.Conn.running.taskLeft(ctx, startNoWait(ctx, opts, s, args))
	}
	res, asked, err := s.CallTool(ctx, opts.Tool, args, nil)
	err = opts.Conn.running.taskLeft(ctx, err)
	if cerr := s.Close(); err == nil {
		// A second answer to the call, seen only now, is a failure too.
		err = cerr
	}
	if err != nil {
		return withAsked(err, asked)
	}
	if err := opts.Answers.record("tools/call", opts.Tool, args, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		if err := opts.Conn.printRaw(opts.IO.Out, "tools/call"); err != nil {
			return err
		}
		if err := opts.Answers.unused(asked.Questions); err != nil {
			return err
		}
		return toolOutcome(res)
	}
	if err := opts.Answers.printAsked(opts.IO.Out, opts.Format == report.JSON, asked, res, func() { printer.ToolResult(opts.IO.Out, res) }); err != nil {
		return err
	}
	return toolOutcome(res)
}

// startNoWait calls a tool and, if the server runs it as a task, prints
// the task id instead of waiting.
func startNoWait(ctx context.Context, opts *CallOptions, s *session.Session, args map[string]any) error {
	started, asked, err := s.StartTool(ctx, opts.Tool, args, nil)
	if err != nil {
		return withAsked(err, asked)
	}
	switch {
	case opts.Format == report.JSON:
		out := printer.Asked{Questions: printer.QuestionsJSON(asked.Questions)}
		if started.Sent != nil {
			out.Task = started.Sent // as the server sent it, in its protocol's words
		} else if started.Task != nil {
			out.Task = started.Task
		} else {
			out.Result = started.Result
		}
		err = printer.JSON(opts.IO.Out, out)
	case started.Task != nil:
		fmt.Fprintf(opts.IO.Out, "task %s: %s\n", termsafe.Line(started.Task.TaskID), termsafe.Line(string(started.Task.Status)))
	default:
		printer.ToolResult(opts.IO.Out, started.Result)
	}
	if err != nil {
		return err
	}
	if note := noWaitReach(started.Task, opts.Conn.Command != "", s.ProtocolVersion()); note != "" {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: note: %s\n", note)
	}
	if err := opts.Answers.unusedBy(asked.Questions, noWaitUnused(started.Task)); err != nil {
		return err
	}
	if started.Task == nil && started.Result.IsError {
		return &exitError{code: ExitFailed}
	}
	return nil
}

// noWaitUnused is why an --elicit answer went unused when --no-wait
// returned with task t: not that the server asked nothing, but that the
// task asks later, or asks now and nobody waited to answer. "" when the
// call made no task.
func noWaitUnused(t *tasks.CreateTaskResult) string {
	if t == nil {
		return ""
	}
	id := termsafe.Line(t.TaskID)
	if t.Status == tasks.StatusInputRequired {
		return fmt.Sprintf("--no-wait returned when task %s asked for input (input_required), without answering: give the answer to mcp-tester tasks wait %s", id, id)
	}
	return fmt.Sprintf("--no-wait returned when task %s was created (%s), before it asked anything: give the answer to mcp-tester tasks wait %s", id, termsafe.Line(string(t.Status)), id)
}

// noWaitReach is what keeps a later mcp-tester tasks from reaching task t
// that --no-wait left running: a server started by the command (-c,
// command) ends with it, and a server of protocol (older than the tasks
// extension's) may keep tasks per session, as the reference server does,
// which a later command's session does not reach. "" when nothing does,
// or when the call made no task.
func noWaitReach(t *tasks.CreateTaskResult, command bool, protocol string) string {
	if t == nil {
		return ""
	}
	id := termsafe.Line(t.TaskID)
	switch {
	case command:
		return fmt.Sprintf("the server (-c) is this command's own process and ends with it: task %s ends with it unless the server keeps its tasks beyond its process; to follow a task with mcp-tester tasks, run the server on its own and reach it with -u", id)
	case protocol < taskclient.ExtensionEra:
		return fmt.Sprintf("this session (protocol %s) ends with this command: a server that keeps tasks per session, as 2025-11-25 allows, does not find task %s in the session of a later mcp-tester tasks", termsafe.Line(protocol), id)
	}
	return ""
}

// checkToolCall checks the tool's name and the --args against the
// server's tools before the call is sent (--no-validate skips it).
// Arguments that do not fit the tool's input schema are a usage error
// naming the argument (and the one a typo most likely meant): the call is
// not sent. A tool the server does not list gets a note naming the tool a
// typo most likely meant, and is called all the same (a server may serve
// tools it does not list), so that the server's answer is what fails. A
// server whose tools cannot be listed gets the call as it is.
func checkToolCall(ctx context.Context, opts *CallOptions, s *session.Session, args map[string]any) error {
	if s.ServerCapabilities().Tools == nil {
		return nil
	}
	tools, _, err := s.ListTools(session.WithPurpose(ctx, "read before the call to check --args"), session.Pages{All: true})
	if err != nil {
		return nil
	}
	t, err := toolargs.Find(opts.Tool, tools)
	if err != nil {
		note := err.Error()
		// Not a typo: the tool may be one the server offers only to a
		// client that declares what this one did not.
		var nl *toolargs.NotListedError
		if errors.As(err, &nl) && nl.Closest == "" && catalog.UndeclaredNote(s.Declared(), declareFlag) != "" {
			note += "; " + catalog.DeclaredLine(s.Declared(), declareFlag)
		}
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: note: %s; calling it all the same\n", termsafe.Line(note))
		return nil
	}
	if err := toolargs.Check(t.Name, t.InputSchema, args); err != nil {
		return usageErr("--args: %v (--no-validate sends them as written)", err)
	}
	return nil
}

// declareFlag names the flag that declares a client capability a server
// may offer tools by (catalog.UndeclaredNote).
func declareFlag(capability string) string {
	if capability == catalog.CapabilitySampling {
		return "--sample"
	}
	return "--root"
}

// parseArgs reads --args: a JSON object, its numbers kept as written.
func parseArgs(text string) (map[string]any, error) {
	if text == "" {
		return map[string]any{}, nil
	}
	m, err := userjson.Parse("--args", text, userjson.AsWritten)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return m, nil
}
