package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/spf13/cobra"
)

// ProfileEnableOptions are the options of `mcp-tester profile enable` and
// `profile disable`.
type ProfileEnableOptions struct {
	IO      *iostreams.IOStreams
	Name    string
	Disable bool // disable instead of enable
}

func newProfileEnableCmd(ios *iostreams.IOStreams, disable bool, runF func(context.Context, *ProfileEnableOptions) error) *cobra.Command {
	opts := &ProfileEnableOptions{IO: ios, Disable: disable}
	cmd := &cobra.Command{
		Use:   "enable NAME",
		Short: "Enable a disabled profile again",
		Example: `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile disable deployer
  mcp-tester profile enable deployer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileEnable(opts)
		},
	}
	if disable {
		cmd.Use = "disable NAME"
		cmd.Short = "Disable a profile: -p NAME is refused until it is enabled again"
		cmd.Example = `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile disable deployer`
	}
	return cmd
}

func runProfileEnable(opts *ProfileEnableOptions) error {
	path, err := editProfile(opts.Name, func(f *profile.File) { f.Profiles[opts.Name].Disabled = opts.Disable })
	if err != nil {
		return err
	}
	state := "Enabled"
	if opts.Disable {
		state = "Disabled"
	}
	fmt.Fprintf(opts.IO.Out, "%s profile %s in %s\n", state, opts.Name, path)
	return nil
}
