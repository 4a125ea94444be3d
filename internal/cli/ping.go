package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

// PingOptions are the options of `mcp-tester ping`.
type PingOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Format string // text or json
}

func newPingCmd(ios *iostreams.IOStreams, runF func(context.Context, *PingOptions) error) *cobra.Command {
	opts := &PingOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "ping",
		Short: "Check that a server answers",
		Example: `  mcp-tester ping -c bin/deployer
  mcp-tester ping -c bin/manytools --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPing(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runPing(ctx context.Context, opts *PingOptions) error {
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	if err := s.Ping(ctx); err != nil {
		return err
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, map[string]any{"ok": true, "server": s.ServerName(), "protocolVersion": s.ProtocolVersion(), "ms": time.Since(start).Milliseconds()})
	}
	fmt.Fprintln(opts.IO.Out, "pong")
	return nil
}
