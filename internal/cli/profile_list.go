package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/tabwriter"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// ProfileListOptions are the options of `mcp-tester profile list`.
type ProfileListOptions struct {
	IO     *iostreams.IOStreams
	Format string // text or json
}

func newProfileListCmd(ios *iostreams.IOStreams, runF func(context.Context, *ProfileListOptions) error) *cobra.Command {
	opts := &ProfileListOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profiles of every profiles file",
		Example: `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileList(opts)
		},
	}
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runProfileList(opts *ProfileListOptions) error {
	pl, err := places()
	if err != nil {
		return err
	}
	var entries []profileEntry
	seen := map[string]bool{}
	for _, path := range pl.List() {
		f, err := loadProfiles(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, n := range f.Names() {
			entries = append(entries, profileEntry{Name: n, File: path, Shadow: seen[n], Profile: redactProfile(f.Profiles[n])})
			seen[n] = true
		}
	}
	if opts.Format == report.JSON {
		if entries == nil {
			entries = []profileEntry{}
		}
		return printer.JSON(opts.IO.Out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No profiles in %s; add one with `mcp-tester profile add NAME -c CMD`\n", strings.Join(pl.List(), " or "))
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVER\tFILE")
	for _, e := range entries {
		name := e.Name
		if e.Profile != nil && e.Profile.Disabled {
			name += " (disabled)"
		}
		if e.Shadow {
			name += " (shadowed)"
		}
		server := e.Profile.URL
		if e.Profile.Command != "" {
			server = "command: " + e.Profile.Command
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termsafe.Line(name), termsafe.Line(server), termsafe.Line(friendlyPath(e.File)))
	}
	return tw.Flush()
}
