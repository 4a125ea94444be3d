package cli

import (
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// newPromptsCmd groups the commands about a server's prompts.
func newPromptsCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "prompts", Short: "List and get a server's prompts",
		Example: `  mcp-tester prompts list -c bin/manytools
  mcp-tester prompts get greeting -c bin/manytools --args '{"name":"Ada"}'`}
	cmd.AddCommand(newPromptsListCmd(ios, nil), newPromptsGetCmd(ios, nil))
	return cmd
}
