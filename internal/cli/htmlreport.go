package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/askback/askback/internal/atomicfile"
	"github.com/askback/askback/internal/htmlreport"
	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/cobra"
)

// addHTMLFlag adds --html FILE: the report as one self-contained HTML
// page, besides any --format.
func addHTMLFlag(cmd *cobra.Command, file *string) {
	cmd.Flags().StringVar(file, "html", "", "also write the report as one self-contained HTML page (no network, no script) to this file")
}

// checkHTMLPath refuses, before anything runs, an --html file whose folder
// does not exist, that names a folder, or a file that is not a regular
// file (a device, a pipe): a long run would otherwise end without its
// report.
func checkHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErr("--html %s: a folder; give the file to write", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		return usageErr("--html %s: not a regular file; give the file to write (the report is written whole, then takes its place)", path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErr("--html %s: no folder %s to write it in", path, dir)
	}
	return nil
}

// htmlMeta is what every page of a command says about the run.
func htmlMeta(ios *iostreams.IOStreams, command, target string) htmlreport.Meta {
	return htmlreport.Meta{Command: command, Target: target, Version: Version(), Generated: time.Now(), Hide: ios.Hide}
}

// writeHTML writes the page that write draws to path, whole
// (internal/atomicfile): a page or a write that fails half-way leaves the
// file as it was, and a browser reloading it never reads half a page.
func writeHTML(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("--html: %w", err)}
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("--html: %w", err)}
	}
	return nil
}
