package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// TopListOptions are the options of `mcp-tester list`, the earlier
// mcp-tester's listing of tools: every page, and optionally their icons
// checked or saved.
type TopListOptions struct {
	ListOptions
	CheckIcons    bool
	DownloadIcons string
}

func newTopListCmd(ios *iostreams.IOStreams, runF func(context.Context, *TopListOptions) error) *cobra.Command {
	opts := &TopListOptions{}
	cmd := newListCmd(ios, &cobra.Command{
		Use:   "list",
		Short: "List the server's tools, every page, and check their icons",
		Long: `List the server's tools as a table, following every page: the earlier
mcp-tester's list command (tools list does the same one page at a time).
--check-icons fetches each tool's icons as inspect does (http, https and
data: URIs only, 5 s and 1 MiB each) and says whether each is an image;
--download-icons DIR also saves them, named by a hash of their source.`,
		Example: `  mcp-tester list -c bin/handbook
  mcp-tester profile add my-server -c 'bin/manytools -tools 3'
  mcp-tester list --check-icons -p my-server
  mcp-tester list --download-icons /tmp/icons -p my-server`,
	}, nil, func(ctx context.Context, lo *ListOptions) error {
		opts.ListOptions = *lo
		if runF != nil {
			return runF(ctx, opts)
		}
		return runTopList(ctx, opts)
	})
	all := cmd.Flags().Lookup("all")
	_ = all.Value.Set("true")
	all.DefValue = "true"
	cmd.Flags().BoolVar(&opts.CheckIcons, "check-icons", false, "fetch every tool icon and check that it is an image")
	cmd.Flags().StringVar(&opts.DownloadIcons, "download-icons", "", "check the tool icons and save them in this directory")
	return cmd
}

func runTopList(ctx context.Context, opts *TopListOptions) error {
	tools, err := listTools(ctx, &opts.ListOptions)
	if err != nil {
		return err
	}
	if !opts.CheckIcons && opts.DownloadIcons == "" {
		return nil
	}
	var icons []inspect.OwnedIcon
	for _, t := range tools {
		for _, ic := range t.Icons {
			icons = append(icons, inspect.OwnedIcon{Owner: fmt.Sprintf("tool %q", t.Name), Icon: ic})
		}
	}
	checks := inspect.CheckIcons(ctx, icons, inspect.IconOptions{Dir: opts.DownloadIcons, ServerURL: opts.Conn.URL})
	w := opts.IO.Out
	if opts.Format == "json" {
		w = opts.IO.ErrOut // stdout keeps one JSON document
	}
	if len(checks) == 0 {
		fmt.Fprintln(w, "No tool has icons.")
	}
	bad := 0
	for _, c := range checks {
		line := fmt.Sprintf("icon of %s: %s: ", termsafe.Line(c.Owner), termsafe.Line(truncateSource(c.Source)))
		if c.OK {
			line += fmt.Sprintf("ok, %s, %d bytes", c.MIMEType, c.Bytes)
		} else {
			bad++
			line += termsafe.Line(c.Problem)
		}
		if c.File != "" {
			line += ", saved to " + c.File
		}
		fmt.Fprintln(w, line)
	}
	if bad > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("%d of %d icons failed the check", bad, len(checks))}
	}
	return nil
}

// truncateSource shortens a data: URI for display.
func truncateSource(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
