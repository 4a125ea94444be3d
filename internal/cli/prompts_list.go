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

func newPromptsListCmd(ios *iostreams.IOStreams, runF func(context.Context, *ListOptions) error) *cobra.Command {
	return newListCmd(ios, &cobra.Command{
		Use:   "list",
		Short: "List the server's prompts",
		Example: `  mcp-tester prompts list -c bin/manytools
  mcp-tester prompts list -c bin/manytools --all --format json`,
	}, runPromptsList, runF)
}

func runPromptsList(ctx context.Context, opts *ListOptions) error {
	_, err := listPages(ctx, opts, "prompts", (*session.Session).ListPrompts, func(p *mcp.Prompt) string { return p.Name }, func(w io.Writer, prompts []*mcp.Prompt) {
		fmt.Fprintln(w, "NAME\tARGUMENTS\tDESCRIPTION")
		for _, p := range prompts {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name+"*")
				} else {
					args = append(args, a.Name)
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", termsafe.Line(p.Name), cell(strings.Join(args, ","), 40), cell(p.Description, 70))
		}
	})
	return err
}
