package cli

import (
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// newResourcesCmd groups the commands about a server's resources.
func newResourcesCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "resources", Short: "List, read and watch a server's resources",
		Example: `  mcp-tester resources list -c bin/manytools --all
  mcp-tester resources templates -c bin/manytools
  mcp-tester resources read note://01 -c bin/manytools
  mcp-tester resources subscribe clock://now -c bin/manytools --count 3`}
	cmd.AddCommand(newResourcesListCmd(ios, nil), newResourcesTemplatesCmd(ios, nil),
		newResourcesReadCmd(ios, nil), newResourcesSubscribeCmd(ios, nil))
	return cmd
}
