package cli

import (
	"context"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

// ResourcesReadOptions are the options of `mcp-tester resources read`.
type ResourcesReadOptions struct {
	IO      *iostreams.IOStreams
	Conn    ConnOptions
	Answers AnswerOptions
	URI     string
	Format  string // text or json
}

func newResourcesReadCmd(ios *iostreams.IOStreams, runF func(context.Context, *ResourcesReadOptions) error) *cobra.Command {
	opts := &ResourcesReadOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource and answer the questions it asks",
		Long: `Read a resource. Questions the server asks are answered like those of call:
--elicit answers in order, questions left over are declined.`,
		Example: `  mcp-tester resources read config://secret-settings -c bin/askserver --elicit accept
  mcp-tester resources read note://01 -c bin/manytools --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URI = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runResourcesRead(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addAnswerFlags(cmd, &opts.Conn, &opts.Answers)
	addRoundsFlag(cmd, &opts.Conn)
	addRecordFlag(cmd, &opts.Answers, recordAppendUsage)
	cmd.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "resources")
	addRawFlag(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, new(bool))
	return cmd
}

func runResourcesRead(ctx context.Context, opts *ResourcesReadOptions) error {
	opts.Conn.JSON = opts.Format == "json" || opts.Conn.Raw
	s, err := opts.Conn.openAnswered(ctx, opts.IO, &opts.Answers)
	if err != nil {
		return err
	}
	defer s.Close()
	res, asked, err := s.ReadResource(ctx, opts.URI, nil)
	if cerr := s.Close(); err == nil {
		// A second answer, seen only now, is a failure too.
		err = cerr
	}
	if err != nil {
		return withAsked(err, asked)
	}
	if err := opts.Answers.record("resources/read", opts.URI, nil, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		if err := opts.Conn.printRaw(opts.IO.Out, "resources/read"); err != nil {
			return err
		}
		return opts.Answers.unused(asked.Questions)
	}
	return opts.Answers.printAsked(opts.IO.Out, opts.Format == "json", asked, res, func() { printer.ResourceResult(opts.IO.Out, res) })
}
