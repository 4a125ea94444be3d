package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newToolsListCmd(ios *iostreams.IOStreams, runF func(context.Context, *ListOptions) error) *cobra.Command {
	return newListCmd(ios, &cobra.Command{
		Use:   "list",
		Short: "List the server's tools",
		Long: `List the server's tools as a table: name, hints from the annotations
(ro: read-only, destructive, idempotent) and description. One page by
default; --all follows every page, --cursor starts at a given one.`,
		Example: `  mcp-tester tools list -c bin/deployer
  mcp-tester tools list -c bin/manytools --all --format json
  mcp-tester tools list -c bin/manytools --cursor "$(mcp-tester tools list -c bin/manytools --format json | jq -r .nextCursor)"`,
	}, runToolsList, runF)
}

func runToolsList(ctx context.Context, opts *ListOptions) error {
	_, err := listTools(ctx, opts)
	return err
}

// listTools lists the pages of tools opts ask for, prints them and returns
// them.
func listTools(ctx context.Context, opts *ListOptions) ([]*mcp.Tool, error) {
	return listPages(ctx, opts, "tools", (*session.Session).ListTools, func(t *mcp.Tool) string { return t.Name }, func(w io.Writer, tools []*mcp.Tool) {
		fmt.Fprintln(w, "NAME\tHINTS\tDESCRIPTION")
		for _, t := range tools {
			fmt.Fprintf(w, "%s\t%s\t%s\n", termsafe.Line(t.Name), hints(t.Annotations), cell(t.Description, 100))
		}
	})
}

// hints summarizes a tool's annotations.
func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return "-"
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "ro")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if len(h) == 0 {
		return "-"
	}
	return strings.Join(h, ",")
}
