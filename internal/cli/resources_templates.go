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

func newResourcesTemplatesCmd(ios *iostreams.IOStreams, runF func(context.Context, *ListOptions) error) *cobra.Command {
	return newListCmd(ios, &cobra.Command{
		Use:     "templates",
		Short:   "List the server's resource templates",
		Example: `  mcp-tester resources templates -c bin/manytools --all`,
	}, runResourcesTemplates, runF)
}

func runResourcesTemplates(ctx context.Context, opts *ListOptions) error {
	_, err := listPages(ctx, opts, "resourceTemplates", (*session.Session).ListResourceTemplates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }, func(w io.Writer, res []*mcp.ResourceTemplate) {
		fmt.Fprintln(w, "URI TEMPLATE\tNAME\tTYPE\tDESCRIPTION")
		for _, r := range res {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termsafe.Line(r.URITemplate), cell(r.Name, 30), cell(r.MIMEType, 30), cell(r.Description, 60))
		}
	})
	return err
}
