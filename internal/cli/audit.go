package cli

import (
	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/cobra"
)

// newAuditCmd builds `mcp-tester audit`.
func newAuditCmd(io *iostreams.IOStreams) *cobra.Command {
	_ = io
	return &cobra.Command{Use: "audit", Short: "Check that a server asks within the rules (not yet available)", Hidden: true}
}
