package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/spf13/cobra"
)

// addHTMLFlag adds --html FILE: the report as one self-contained HTML
// page, besides any --format.
func addHTMLFlag(cmd *cobra.Command, file *string) {
	cmd.Flags().StringVar(file, "html", "", "also write the report as one self-contained HTML page (no network, no script) to this file")
}

// checkOutPath refuses, before anything runs, the file a flag names
// (--html, --junit, --badge, -o, --report) when its folder does not exist,
// or it names a folder, a symbolic link (not followed: see internal/platform/outfile)
// or a file that is not a regular file (a device, a pipe): a long run would
// otherwise end without its report.
func checkOutPath(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Lstat(path); err == nil {
		switch {
		case fi.IsDir():
			return usageErr("%s %s: a folder; give the file to write", flag, path)
		case fi.Mode()&fs.ModeSymlink != 0:
			return usageErr("%s %s: a symbolic link; give the path of a regular file (a link is not followed)", flag, path)
		case !fi.Mode().IsRegular():
			return usageErr("%s %s: not a regular file; give the file to write (the report is written whole, then takes its place)", flag, path)
		}
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErr("%s %s: no folder %s to write it in", flag, path, dir)
	}
	return nil
}

// htmlMeta is what every page of a command says about the run.
func htmlMeta(ios *iostreams.IOStreams, command, target string) htmlreport.Meta {
	return htmlreport.Meta{Command: command, Target: target, Version: Version(), Generated: time.Now(), Hide: ios.Hide}
}

// writeHTML writes the page that write draws to path, whole
// (report.WriteFile): a page or a write that fails half-way leaves the
// file as it was, and a browser reloading it never reads half a page.
func writeHTML(path string, write func(io.Writer) error) error {
	return writeReportFile("--html", path, nil, write)
}

// writeReportFile writes the report file that flag names (--html, --junit,
// --badge) whole, with what hide hides hidden; a report that cannot be written
// fails the command (exit 1), whichever report it is: the run happened,
// its report is missing.
func writeReportFile(flag, path string, hide func(string) string, write func(io.Writer) error) error {
	if err := report.WriteFile(flag, path, hide, write); err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	return nil
}

// emit writes a command's report on stdout in format (internal/report).
func emit(ios *iostreams.IOStreams, format string, ws report.Writers) error {
	return report.Emit(report.Out{Out: ios.Out, Workflow: ios.WorkflowCommands(), Tool: sarifTool()}, format, ws)
}

// sarifTool is mcp-tester as the tool of a SARIF run.
func sarifTool() sarif.Tool {
	return sarif.Tool{Name: "mcp-tester", Version: Version(), InformationURI: "https://github.com/askback/askback"}
}
