package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// CompleteOptions are the options of `mcp-tester complete`.
type CompleteOptions struct {
	IO       *iostreams.IOStreams
	Conn     ConnOptions
	Prompt   string   // the prompt whose argument to complete
	Template string   // or the resource template whose variable to complete
	Context  []string // NAME=VALUE of the arguments already chosen
	Argument string   // the argument to complete
	Value    string   // what has been typed so far
	Format   string   // text or json
}

func newCompleteCmd(ios *iostreams.IOStreams, runF func(context.Context, *CompleteOptions) error) *cobra.Command {
	opts := &CompleteOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "complete (--prompt NAME | --template URI) ARGUMENT [VALUE]",
		Short: "Ask the server to complete an argument of a prompt or resource template",
		Long: `Ask the server for completions (completion/complete) of one argument of a
prompt or of a resource template, given what has been typed so far. The
values are printed one a line. --context NAME=VALUE passes arguments
already chosen.`,
		Example: `  mcp-tester complete --prompt release-notes version 2.4 -c bin/manytools
  mcp-tester complete --template 'customer://{id}' id c- -c bin/manytools --format json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Argument, opts.Value = args[0], ""
			if len(args) == 2 {
				opts.Value = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runComplete(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.Flags().StringVar(&opts.Prompt, "prompt", "", "the prompt whose argument to complete")
	cmd.Flags().StringVar(&opts.Template, "template", "", "the resource template whose variable to complete")
	stringsVar(cmd.Flags(), &opts.Context, "context", "NAME=VALUE of an argument already chosen (repeatable)")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runComplete(ctx context.Context, opts *CompleteOptions) error {
	ref := &mcp.CompleteReference{}
	switch {
	case opts.Prompt != "" && opts.Template != "":
		return usageErr("give --prompt or --template, not both")
	case opts.Prompt != "":
		ref.Type, ref.Name = "ref/prompt", opts.Prompt
	case opts.Template != "":
		ref.Type, ref.URI = "ref/resource", opts.Template
	default:
		return usageErr("say what to complete: --prompt NAME or --template URI")
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: opts.Argument, Value: opts.Value}}
	if len(opts.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: map[string]string{}}
		for _, kv := range opts.Context {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usageErr("--context %q: write NAME=VALUE", kv)
			}
			params.Context.Arguments[k] = v
		}
	}
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Complete(ctx, params)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res.Completion)
	}
	values := res.Completion.Values
	for _, v := range values {
		fmt.Fprintln(opts.IO.Out, termsafe.Line(v))
	}
	if res.Completion.HasMore {
		fmt.Fprintf(opts.IO.ErrOut, "(the server has more than these %d values)\n", len(values))
	}
	return nil
}
