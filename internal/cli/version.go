package cli

import (
	"fmt"

	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/cobra"
)

func newVersionCmd(io *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the tester's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(io.Out, "mcp-tester %s\n", Version)
			return nil
		},
	}
}
