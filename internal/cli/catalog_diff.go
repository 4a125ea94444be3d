package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/catalog/catalogdiff"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/ghactions"
	"github.com/spf13/cobra"
)

// CatalogDiffOptions are the options of `mcp-tester catalog diff`.
type CatalogDiffOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	// Old is the catalog file compared against; New the later file, or
	// "" to compare with the live server Conn reaches.
	Old, New string
	Format   string
	FailOn   string
}

func newCatalogDiffCmd(ios *iostreams.IOStreams, runF func(context.Context, *CatalogDiffOptions) error) *cobra.Command {
	opts := &CatalogDiffOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "diff OLD [NEW | -c CMD | -u URL | -p PROFILE]",
		Short: "Compare two catalogs, or a catalog and the live server, and classify every change",
		Long: `Diff compares a catalog file (from catalog save) with a later one, or with
the catalog of a live server, and classifies every change:

  breaking  a caller written for the old catalog fails: a tool, prompt,
            argument or resource removed or renamed (a removal and an
            addition with the same schema are reported as "renamed?"), a
            required input added, an input narrowed (type changed, enum
            value removed, bound tightened, pattern or format added), an
            output field removed or changed, a capability dropped;
  review    what the model or the user is told changed: descriptions,
            titles, instructions, defaults, icons, annotations (a tool
            approved as read-only that no longer is, or one that turns
            destructive, is a rug pull);
  safe      an optional input, a tool or a value added, a bound loosened.

Exit status: 1 when a change at or above --fail-on is found (breaking by
default; review, any, or none), 0 otherwise; 2 when a file cannot be read;
3 when the server cannot be reached.

--format text (for people), json (one document), markdown (a pull request
comment), sarif (code scanning: each change at its line of the catalog
file), or github (the text, and a GitHub Actions annotation per change at
its line of the catalog file). Everything a server wrote is escaped.`,
		Example: `  mcp-tester catalog save -c bin/deployer -o /tmp/catalog.json
  mcp-tester catalog diff /tmp/catalog.json -c bin/deployer
  mcp-tester catalog save -c bin/deployer -o /tmp/new.json
  mcp-tester catalog diff /tmp/catalog.json /tmp/new.json --format markdown --fail-on review
  mcp-tester catalog diff /tmp/catalog.json -c bin/deployer --format sarif > /tmp/catalog.sarif`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Old = args[0]
			if len(args) == 2 {
				opts.New = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCatalogDiff(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addFormatChoice(cmd, &opts.Format, "output format: text, json, markdown, sarif or github", report.Text, report.JSON, report.Markdown, report.SARIF, report.GitHub)
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", "breaking", "exit 1 on a change of this class or worse: breaking, review, any or none")
	return cmd
}

func runCatalogDiff(ctx context.Context, opts *CatalogDiffOptions) error {
	threshold, err := catalogdiff.ParseThreshold(opts.FailOn)
	if err != nil {
		return usageErr("--fail-on %v", err)
	}
	live := opts.Conn.Command != "" || opts.Conn.URL != "" || opts.Conn.Profile != ""
	switch {
	case opts.New != "" && live:
		return usageErr("compare OLD with a file NEW or with a server (-c, -u, -p), not both")
	case opts.New == "" && !live:
		return usageErr("nothing to compare %s with: give a file NEW, or a server (-c CMD, -u URL, -p PROFILE)", opts.Old)
	}
	collectAsHeld(os.Getenv)
	old, oldLines, err := readCatalogFile(opts.IO, opts.Old)
	if err != nil {
		return err
	}
	files := catalogdiff.Files{Old: opts.Old}
	var cur *catalog.Catalog
	var newLines bool
	source := opts.New
	if opts.New != "" {
		cur, newLines, err = readCatalogFile(opts.IO, opts.New)
		files.New = opts.New
	} else {
		cur, source, err = fetchCatalog(ctx, opts.IO, &opts.Conn)
	}
	if err != nil {
		return err
	}
	rep := catalogdiff.Compare(old, cur)
	rep.Old.Source, rep.New.Source = opts.Old, source
	// The lines of the changes only: a line for every path of two large
	// files would cost more memory than the catalogs.
	paths := make([]catalog.Path, len(rep.Changes))
	for i, c := range rep.Changes {
		paths[i] = c.Path
	}
	if oldLines {
		if files.OldLines, err = old.LinesOf(paths); err != nil {
			return err
		}
	}
	if newLines {
		if files.NewLines, err = cur.LinesOf(paths); err != nil {
			return err
		}
	}
	rep.Files = files
	rep.Name = catalogDiffFlagName
	if err := writeCatalogDiff(opts.IO, opts.Format, rep, threshold, files); err != nil {
		return err
	}
	if rep.Fails(threshold) {
		w, _ := rep.Worst()
		return &exitError{code: ExitFailed, err: fmt.Errorf("the catalog has %s changes (--fail-on %s)", w, threshold)}
	}
	return nil
}

// catalogDiffFlagName names an option of the diff's reports as the flag
// that sets it.
func catalogDiffFlagName(o catalogdiff.Option) string {
	switch o {
	case catalogdiff.OptionThreshold:
		return "--fail-on"
	}
	return ""
}

func writeCatalogDiff(ios *iostreams.IOStreams, format string, rep *catalogdiff.Report, t catalogdiff.Threshold, files catalogdiff.Files) error {
	return emit(ios, format, report.Writers{
		Text:        func(w io.Writer) error { return rep.WriteText(w, t) },
		JSON:        func(w io.Writer) error { return rep.WriteJSON(w, t, files) },
		Markdown:    func(w io.Writer) error { return rep.WriteMarkdown(w, t) },
		SARIF:       rep,
		Annotations: func() []ghactions.Annotation { return rep.Annotations(files) },
	})
}

// addSARIFFileFlag adds --sarif-file: the file at which code scanning
// shows findings about a live server.
func addSARIFFileFlag(cmd *cobra.Command, file *string) {
	cmd.Flags().StringVar(file, "sarif-file", "catalog.json",
		"with --format sarif: the file (from the repository root) code scanning shows findings about the server at; code scanning needs one")
}
