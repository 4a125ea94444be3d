package cli

import (
	"context"
	"encoding/json"
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
	return listPagesAs(ctx, opts, "tools", (*session.Session).ListTools, func(w io.Writer, tools []*mcp.Tool) {
		fmt.Fprintln(w, "NAME\tHINTS\tDESCRIPTION")
		for _, t := range tools {
			fmt.Fprintf(w, "%s\t%s\t%s\n", termsafe.Line(t.Name), hints(t.Annotations), cell(t.Description, 100))
		}
	}, toolJSON)
}

// toolJSON is a listed tool as the server listed it: the go-sdk's Tool
// with the execution member it has no field for (task support).
func toolJSON(s *session.Session, t *mcp.Tool) (any, error) {
	ex := s.ToolExecution(t.Name)
	if ex == nil {
		return t, nil
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["execution"] = ex
	return m, nil
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
