package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newResourcesListCmd(ios *iostreams.IOStreams, runF func(context.Context, *ListOptions) error) *cobra.Command {
	return newListCmd(ios, &cobra.Command{
		Use:   "list",
		Short: "List the server's resources",
		Example: `  mcp-tester resources list -c bin/manytools
  mcp-tester resources list -c bin/manytools --all --format json`,
	}, runResourcesList, runF)
}

func runResourcesList(ctx context.Context, opts *ListOptions) error {
	_, err := listPages(ctx, opts, "resources", (*session.Session).ListResources, func(r *mcp.Resource) string { return r.URI }, func(w io.Writer, res []*mcp.Resource) {
		fmt.Fprintln(w, "URI\tNAME\tTYPE\tDESCRIPTION")
		for _, r := range res {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termsafe.Line(r.URI), cell(r.Name, 30), cell(r.MIMEType, 30), cell(r.Description, 60))
		}
	})
	return err
}
