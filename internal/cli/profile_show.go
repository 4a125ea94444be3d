package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// ProfileShowOptions are the options of `mcp-tester profile show`.
type ProfileShowOptions struct {
	IO     *iostreams.IOStreams
	Name   string
	Format string // text (YAML, as written) or json
}

func newProfileShowCmd(ios *iostreams.IOStreams, runF func(context.Context, *ProfileShowOptions) error) *cobra.Command {
	opts := &ProfileShowOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a profile as written (literal secrets hidden)",
		Example: `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile show deployer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileShow(opts)
		},
	}
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runProfileShow(opts *ProfileShowOptions) error {
	pl, err := places()
	if err != nil {
		return err
	}
	p, path, err := lookupProfile(pl, opts.Name)
	if err != nil {
		return err
	}
	p = redactProfile(p)
	if opts.Format == report.JSON {
		return printer.JSON(opts.IO.Out, profileEntry{Name: opts.Name, File: path, Profile: p})
	}
	fmt.Fprintf(opts.IO.Out, "# %s\n", friendlyPath(path))
	b, err := yaml.Marshal(map[string]*profile.Profile{opts.Name: p})
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(b)
	return err
}
