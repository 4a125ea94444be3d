package cli

import (
	"context"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

// PromptsGetOptions are the options of `mcp-tester prompts get`.
type PromptsGetOptions struct {
	IO      *iostreams.IOStreams
	Conn    ConnOptions
	Answers AnswerOptions
	Name    string
	// Args are the prompt's arguments: a JSON object of strings.
	Args   string
	Format string // text or json
}

func newPromptsGetCmd(ios *iostreams.IOStreams, runF func(context.Context, *PromptsGetOptions) error) *cobra.Command {
	opts := &PromptsGetOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Get a prompt and answer the questions it asks",
		Long: `Get a prompt. Questions the server asks (input_required, or elicitation/create
from older servers) are answered like those of call: --elicit answers in
order, questions left over are declined, each is printed as an [ELICIT] line.`,
		Example: `  mcp-tester prompts get greeting -c bin/askserver --elicit 'accept:{"name":"Ada"}'
  mcp-tester prompts get release-notes -c bin/manytools --args '{"version":"2.4.1"}' --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPromptsGet(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addAnswerFlags(cmd, &opts.Conn, &opts.Answers)
	addRoundsFlag(cmd, &opts.Conn)
	addRecordFlag(cmd, &opts.Answers, recordAppendUsage)
	cmd.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "prompts")
	addRawFlag(cmd, &opts.Conn)
	cmd.Flags().StringVarP(&opts.Args, "args", "a", "{}", "the prompt's arguments as a JSON object of strings")
	addFormatFlag(cmd, &opts.Format, new(bool))
	return cmd
}

func runPromptsGet(ctx context.Context, opts *PromptsGetOptions) error {
	var args map[string]string
	if opts.Args != "" {
		m, err := userjson.Parse("--args", opts.Args, userjson.AsWritten)
		if err != nil {
			return usageErr("%v; a prompt takes a JSON object of strings", err)
		}
		args = make(map[string]string, len(m))
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return usageErr("--args: a prompt's arguments are strings; %q is not", k)
			}
			args[k] = s
		}
	}
	opts.Conn.JSON = opts.Format == "json" || opts.Conn.Raw
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	res, asked, err := s.GetPrompt(ctx, opts.Name, args, nil)
	if cerr := s.Close(); err == nil {
		// A second answer, seen only now, is a failure too.
		err = cerr
	}
	if err != nil {
		return withAsked(err, asked)
	}
	if err := opts.Answers.record("prompts/get", opts.Name, args, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		if err := opts.Conn.printRaw(opts.IO.Out, "prompts/get"); err != nil {
			return err
		}
		return opts.Answers.unused(asked.Questions)
	}
	return opts.Answers.printAsked(opts.IO.Out, opts.Format == "json", asked, res, func() { printer.PromptResult(opts.IO.Out, res) })
}
