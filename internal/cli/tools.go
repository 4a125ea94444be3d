package cli

import (
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// newToolsCmd groups the commands about a server's tools.
func newToolsCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List and call a server's tools",
		Example: `  mcp-tester tools list -c bin/deployer
  mcp-tester call deploy -c bin/deployer --args '{"service":"auth-service"}' --elicit decline`}
	cmd.AddCommand(newToolsListCmd(ios, nil), newCallCmd(ios, nil))
	return cmd
}
