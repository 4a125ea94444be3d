package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/spf13/cobra"
)

// linkVersion is the version given when the binary is linked:
//
//	go build -ldflags "-X github.com/askback/askback/internal/cli.linkVersion=v1.2.3" ./cmd/mcp-tester
//
// (make build sets it from git describe). Empty otherwise.
var linkVersion string

// Version is the tester's version: the one given at link time; else the
// module version the Go toolchain recorded in the build (a tagged release
// installed with go install, or v0.0.0-DATE-COMMIT built from a checkout,
// "+dirty" with local changes); else "devel".
func Version() string {
	if linkVersion != "" {
		return linkVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// VersionOptions are the options of `mcp-tester version`.
type VersionOptions struct {
	IO     *iostreams.IOStreams
	Format string // text or json
}

func newVersionCmd(ios *iostreams.IOStreams, runF func(context.Context, *VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the tester's version",
		Long: `Print the tester's version (also: mcp-tester --version): the one set when it
was built (make build takes it from git describe), or the module version Go
recorded; with --format json, also the Go version and the commit it was
built from.`,
		Example: `  mcp-tester version
  mcp-tester --version
  mcp-tester version --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVersion(opts)
		},
	}
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runVersion(opts *VersionOptions) error {
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.Out, "mcp-tester %s\n", Version())
		return nil
	}
	out := map[string]string{"version": Version(), "go": runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				out["commit"] = s.Value
			case "vcs.modified":
				out["modified"] = s.Value
			}
		}
		out["module"] = strings.TrimSpace(bi.Main.Path)
	}
	return printer.JSON(opts.IO.Out, out)
}
