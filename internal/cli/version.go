package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// The build's stamps, set when the binary is linked:
//
//	go build -ldflags "-X github.com/askback/askback/internal/cli.linkVersion=v1.2.3 \
//	  -X github.com/askback/askback/internal/cli.linkCommit=COMMIT" ./cmd/mcp-tester
//
// scripts/release.sh sets the version and the commit; make build sets only
// the commit (and linkModified when the clone has uncommitted changes): a
// build from a clone is no release and says so.
var (
	linkVersion  string
	linkCommit   string
	linkModified string
)

// How a binary came to be, as `mcp-tester version` names it.
const (
	BuildRelease   = "release"    // scripts/release.sh: version and commit stamped
	BuildClone     = "clone"      // built in a clone (make build, go build): a commit, no release version
	BuildGoInstall = "go install" // go install MODULE@VERSION: the module version Go recorded
	BuildUnknown   = "unknown"    // none of these: nothing was stamped or recorded
)

// BuildInfo is what a binary knows of its own build.
type BuildInfo struct {
	Version  string `json:"version"`            // v1.2.3, or "devel" when the build has no release version
	Build    string `json:"build"`              // BuildRelease, BuildClone, BuildGoInstall or BuildUnknown
	Commit   string `json:"commit,omitempty"`   // the commit built, when known
	Modified bool   `json:"modified,omitempty"` // the clone had uncommitted changes
	Module   string `json:"module,omitempty"`   // the main module's path
	Go       string `json:"go"`                 // the Go version it was built with
}

// ReadBuildInfo reads the link-time stamps, else what the Go toolchain
// recorded in the binary (debug.ReadBuildInfo).
func ReadBuildInfo() BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return buildInfo(linkVersion, linkCommit, linkModified == "true", bi)
}

// buildInfo decides from the stamps and the recorded build information.
func buildInfo(version, commit string, modified bool, bi *debug.BuildInfo) BuildInfo {
	b := BuildInfo{Version: "devel", Build: BuildUnknown, Go: runtime.Version()}
	var vcsCommit string
	var vcsModified bool
	if bi != nil {
		b.Module = bi.Main.Path
		if bi.GoVersion != "" {
			b.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsCommit = s.Value
			case "vcs.modified":
				vcsModified = s.Value == "true"
			}
		}
	}
	switch {
	case version != "":
		b.Version, b.Build, b.Commit, b.Modified = version, BuildRelease, commit, modified
	case commit != "":
		b.Build, b.Commit, b.Modified = BuildClone, commit, modified
	case vcsCommit != "":
		// go build in a clone with VCS stamping: Go derives the module
		// version from the commit (a pseudo-version), or from a tag on it.
		b.Build, b.Commit, b.Modified = BuildClone, vcsCommit, vcsModified
		if v := bi.Main.Version; semver.IsValid(v) && !module.IsPseudoVersion(v) && semver.Build(v) == "" {
			b.Version = v
		}
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		// go install MODULE@VERSION: the version comes from the module
		// proxy; a pseudo-version names its commit.
		b.Version, b.Build = bi.Main.Version, BuildGoInstall
		if module.IsPseudoVersion(bi.Main.Version) {
			b.Commit, _ = module.PseudoVersionRev(bi.Main.Version)
		}
	}
	return b
}

// String is the line `mcp-tester version` prints after the name: the
// version, then how it was built and from which commit.
func (b BuildInfo) String() string {
	var how string
	switch b.Build {
	case BuildRelease:
		how = "commit " + orUnknown(shortCommit(b.Commit))
	case BuildClone:
		how = "development build from a clone, commit " + orUnknown(shortCommit(b.Commit))
		if b.Modified {
			how += ", with uncommitted changes"
		}
	case BuildGoInstall:
		how = "built by go install from the module " + b.Module
		if b.Commit != "" {
			how += ", commit " + shortCommit(b.Commit)
		}
	default:
		how = "development build, commit unknown"
	}
	return b.Version + " (" + how + ")"
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Version is the tester's version, as it names itself to servers: the
// release version, the module version of a go install, or "devel".
func Version() string {
	return ReadBuildInfo().Version
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
		Long: `Print the tester's version and the commit it was built from (also:
mcp-tester --version). A release names its version and commit; a build
from a clone (make build) says it is a development build and names the
commit; a go install names the module version. With --format json: the
version, how it was built, the commit, the module and the Go version.`,
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
	b := ReadBuildInfo()
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.Out, "mcp-tester %s\n", b)
		return nil
	}
	b.Module = strings.TrimSpace(b.Module)
	return printer.JSON(opts.IO.Out, b)
}
