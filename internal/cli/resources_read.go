package cli

import (
	"context"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
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
		Example: `  mcp-tester resources read config://prod -c ./server --elicit accept
  mcp-tester resources read note://01 -c ./server --format json`,
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
	addCapabilityFlags(cmd, &opts.Conn)
	addRoundsFlag(cmd, &opts.Conn)
	addValidateFlag(cmd, &opts.Conn)
	addElicitFlag(cmd, &opts.Answers)
	addRootFlag(cmd, &opts.Conn)
	addHumanFlags(cmd, &opts.Answers)
	addOpenFlag(cmd, &opts.Answers)
	addRecordFlag(cmd, &opts.Answers, recordAppendUsage)
	cmd.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "resources")
	addRawFlag(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, new(bool))
	return cmd
}

func runResourcesRead(ctx context.Context, opts *ResourcesReadOptions) error {
	ans, err := opts.Answers.answerer(opts.IO)
	if err != nil {
		return err
	}
	s, err := opts.Conn.open(ctx, opts.IO, ans)
	if err != nil {
		return err
	}
	defer s.Close()
	res, asked, err := s.ReadResource(ctx, opts.URI, nil)
	if err != nil {
		return err
	}
	if err := opts.Answers.record("resources/read", opts.URI, nil, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		return opts.Conn.printRaw(opts.IO.Out, "resources/read")
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res)
	}
	printer.ResourceResult(opts.IO.Out, res)
	return nil
}
