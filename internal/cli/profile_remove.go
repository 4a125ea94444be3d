package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/spf13/cobra"
)

// ProfileRemoveOptions are the options of `mcp-tester profile remove`.
type ProfileRemoveOptions struct {
	IO   *iostreams.IOStreams
	Name string
}

func newProfileRemoveCmd(ios *iostreams.IOStreams, runF func(context.Context, *ProfileRemoveOptions) error) *cobra.Command {
	opts := &ProfileRemoveOptions{IO: ios}
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm", "delete"},
		Short:   "Remove a profile from the file it is found in",
		Example: `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile remove deployer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileRemove(opts)
		},
	}
}

func runProfileRemove(opts *ProfileRemoveOptions) error {
	path, err := editProfile(opts.Name, func(f *profile.File) { delete(f.Profiles, opts.Name) })
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Removed profile %s from %s\n", opts.Name, path)
	return nil
}
