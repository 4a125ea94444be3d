package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/spf13/cobra"
)

// ScanOptions are the options of `mcp-tester scan`.
type ScanOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	// Profiles are the profiles to scan together (-p, repeatable);
	// AllProfiles scans every enabled profile of mcp-tester.yml.
	Profiles    []string
	AllProfiles bool
	// Catalogs are catalog files scanned with the servers (--catalog).
	Catalogs []string
	Format   string
	// SARIFFile is where code scanning shows the findings about a live
	// server (--sarif-file); a --catalog file's findings are at that file.
	SARIFFile string
	// FailOn is the lowest severity that fails the scan (exit 1), or
	// "never".
	FailOn string
	// HTML is where to write the report as an HTML page (--html).
	HTML string
}

func newScanCmd(ios *iostreams.IOStreams, runF func(context.Context, *ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Scan what a server tells the model for attacks on it",
		Long: `Scan lists what a server tells the model (its instructions, tools with their
names, titles, descriptions and schemas, prompts and their arguments,
resources and templates) and reports what attacks the model or hides from
the person:

  hidden text        tag characters, bidirectional and control characters,
                     zero-width characters, look-alike names, text hidden in
                     comments or invisible markup, <IMPORTANT>-style tags
  instructions       to ignore other instructions, to keep something from
                     the user, to read files or secrets, to run before any
                     other tool
  exfiltration       addresses to send data to, parameters that carry the
                     conversation or secrets out
  shadowing          descriptions that dictate how other tools are used
  excessive agency   tools that run commands, delete or spend without
                     annotations that say so
  names              names that collide within a server or across servers

Each finding has a rule id (MCPS001, …), a severity (high, medium, low,
info), a one-line reason and the JSON path of the text. Scan several
servers together, as a client that offers their tools side by side, with
-p NAME more than once or --all-profiles: names that collide across them,
and descriptions that speak of another server's tools, are found then.
--catalog FILE adds the catalog saved in a JSON file (its server,
instructions, tools, prompts, resources and resourceTemplates) as one more
server, or alone.

--trace FILE writes every JSON-RPC message of the scan to one file, one
JSON line each, as the other commands' traces do (credentials hidden,
requestState shown by its length; -v writes it to stderr): with -p or
--all-profiles each line names its profile in "server", in one file for
all the servers (jq 'select(.server == "NAME")' picks one server's).

Nothing is called: the scan only lists. Exit status: 0 when no finding is
at or above --fail-on (default high), 1 when one is (or a list the server
declared failed), 2 for bad flags, 3 when a server could not be reached.
--html FILE also writes the report as one self-contained HTML page.`,
		Example: `  mcp-tester scan -c bin/deployer
  mcp-tester scan -c bin/manytools --format json --fail-on medium
  mcp-tester scan -c 'bin/catalogserver internal/checks/scan/testdata/corpus/poisoned-calculator.json' --fail-on never`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runScan(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Conn)
	addTraceFlags(cmd, &opts.Conn)
	f := cmd.Flags()
	stringsVarP(f, &opts.Profiles, "profile", "p", "scan the server of this profile of mcp-tester.yml (repeatable: the servers are scanned together)")
	_ = cmd.RegisterFlagCompletionFunc("profile", completeProfiles)
	f.BoolVar(&opts.AllProfiles, "all-profiles", false, "scan the servers of every enabled profile of mcp-tester.yml together")
	stringsVar(f, &opts.Catalogs, "catalog", "scan the catalog saved in this JSON file too, as one more server (repeatable)")
	f.StringVar(&opts.FailOn, "fail-on", "high", "exit 1 when a finding is of this severity or higher: high, medium, low, info, or never")
	addFormatChoice(cmd, &opts.Format, "output format: text, json or sarif (code scanning)", report.Text, report.JSON, report.SARIF)
	addSARIFFileFlag(cmd, &opts.SARIFFile)
	addHTMLFlag(cmd, &opts.HTML)
	return cmd
}

func runScan(ctx context.Context, opts *ScanOptions) error {
	failOn, err := parseFailOn(opts.FailOn)
	if err != nil {
		return err
	}
	names, err := opts.profileNames()
	if err != nil {
		return err
	}
	if len(opts.Catalogs) > 0 {
		collectAsHeld(os.Getenv)
	}
	files, fileOf, err := readCatalogFiles(opts.Catalogs)
	if err != nil {
		return err
	}
	if err := checkOutPath("--html", opts.HTML); err != nil {
		return err
	}
	servers, incomplete, err := opts.servers(ctx, names, len(files) > 0)
	if err != nil {
		return err
	}
	for _, f := range files {
		for _, n := range f.servers {
			servers = append(servers, scan.Server{Name: n.Name, Catalog: n.Listing})
		}
	}
	rep := scan.Scan(servers...)
	if err := writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteScan(w, htmlMeta(opts.IO, "mcp-tester scan", scanTarget(opts)), rep, incomplete)
	}); err != nil {
		return err
	}
	at := sarif.Anchor{File: opts.SARIFFile, Files: fileOf}
	if opts.Format == report.SARIF {
		at.Regions = catalogRegions(rep, files, fileOf)
	}
	if err := opts.report(rep, incomplete, at); err != nil {
		return err
	}
	if failOn > 0 {
		if n := rep.AtLeast(failOn); n > 0 {
			return &exitError{code: ExitFailed, err: fmt.Errorf("%d finding(s) at or above --fail-on %s", n, failOn)}
		}
	}
	if len(incomplete) > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("the scan is incomplete: %s", strings.Join(incomplete, "; "))}
	}
	return nil
}

// servers lists the catalogs of the servers to scan: the one of -c/-u, or
// those of the profiles names; none when only catalog files are scanned
// (files), and then a --trace file says there was nothing to trace.
func (opts *ScanOptions) servers(ctx context.Context, names []string, files bool) (servers []scan.Server, incomplete []string, err error) {
	if !files || len(names) > 0 || opts.Conn.Command != "" || opts.Conn.URL != "" {
		return gatherCatalogs(ctx, opts.IO, opts.Conn, names)
	}
	if opts.Conn.TraceFile != "" {
		// Catalog files alone: no message to trace, and a file that says so.
		if err := checkOutPath("--trace", opts.Conn.TraceFile); err != nil {
			return nil, nil, err
		}
		f, err := outfile.Create(opts.Conn.TraceFile, 0o600)
		if err != nil {
			return nil, nil, usageErr("--trace: %v", err)
		}
		f.Close()
	}
	return nil, nil, nil
}

// report writes the scan's report in the format asked for, with what
// could not be scanned; at says where code scanning shows the findings
// (which catalog file each server came from, and where in it).
func (opts *ScanOptions) report(rep *scan.Report, incomplete []string, at sarif.Anchor) error {
	return emit(opts.IO, opts.Format, report.Writers{
		Text: func(w io.Writer) error {
			if err := rep.WriteText(w); err != nil {
				return err
			}
			for _, why := range incomplete {
				if _, err := fmt.Fprintf(w, "Not scanned: %s\n", why); err != nil {
					return err
				}
			}
			return nil
		},
		JSON: func(w io.Writer) error {
			return printer.JSON(w, struct {
				*scan.Report
				FailOn     string   `json:"failOn"`
				Incomplete []string `json:"incomplete,omitempty"`
			}{rep, opts.FailOn, incomplete})
		},
		SARIF: report.Incomplete(rep, strings.Join(incomplete, "; ")),
		At:    at,
	})
}

// catalogFile is a --catalog file read: its path, its bytes and the
// servers it holds.
type catalogFile struct {
	path    string
	data    []byte
	servers []catalog.Named
}

// readCatalogFiles reads the --catalog files, and which file each server
// came from (the last that holds one of its name); a file that cannot be
// read or holds no catalog is a usage error, before anything is started.
func readCatalogFiles(paths []string) ([]catalogFile, map[string]string, error) {
	var out []catalogFile
	fileOf := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, usageErr("--catalog: %v", err)
		}
		data, err := readBounded(f, catalog.MaxFileSize)
		f.Close()
		if err != nil {
			return nil, nil, usageErr("--catalog %s: %v", p, err)
		}
		servers, err := catalog.ReadFile(p, data)
		if err != nil {
			return nil, nil, usageErr("--catalog %v", err)
		}
		for _, s := range servers {
			fileOf[s.Name] = p
		}
		out = append(out, catalogFile{path: p, data: data, servers: servers})
	}
	return out, fileOf, nil
}

// catalogRegions are where in the --catalog files the findings about
// their servers are (sarif.Anchor's Regions): each server's findings are
// located in the file it is shown at (fileOf).
func catalogRegions(rep *scan.Report, files []catalogFile, fileOf map[string]string) map[string]map[string]sarif.Region {
	out := map[string]map[string]sarif.Region{}
	for _, f := range files {
		var servers []catalog.Named
		for _, n := range f.servers {
			if fileOf[n.Name] == f.path {
				servers = append(servers, n)
			}
		}
		// catalog.ReadFile read the file strictly: Regions reads it too.
		regions, err := rep.Regions(f.data, servers)
		if err != nil {
			continue
		}
		maps.Copy(out, regions)
	}
	return out
}

// parseFailOn reads --fail-on: a severity, or never (0).
func parseFailOn(s string) (scan.Severity, error) {
	if s == "never" {
		return 0, nil
	}
	sev, err := scan.ParseSeverity(s)
	if err != nil {
		return 0, usageErr("--fail-on: %v, or never", err)
	}
	return sev, nil
}

// profileNames returns the profiles to scan: those of -p, or with
// --all-profiles every enabled one.
func (o *ScanOptions) profileNames() ([]string, error) {
	given := o.Conn.Command != "" || o.Conn.URL != ""
	switch {
	case o.AllProfiles && len(o.Profiles) > 0:
		return nil, usageErr("--all-profiles scans every profile: give it or -p, not both")
	case (o.AllProfiles || len(o.Profiles) > 1) && given:
		return nil, usageErr("-c and -u name one server; with several profiles, name each server by its profile")
	case !o.AllProfiles:
		for _, n := range o.Profiles {
			if err := profile.ValidName(n); err != nil {
				return nil, usageErr("-p: %v", err)
			}
		}
		return o.Profiles, nil
	}
	pl, err := places()
	if err != nil {
		return nil, err
	}
	names, err := enabledProfiles(pl)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, usageErr("--all-profiles: no enabled profile in %s", strings.Join(pl.List(), " or "))
	}
	return names, nil
}

// enabledProfiles are the names of the enabled profiles in the files of
// pl, sorted; a file that does not exist is passed over, one that cannot
// be read is an error (as it is to -p).
func enabledProfiles(pl profile.Places) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, path := range pl.List() {
		f, err := loadProfiles(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, n := range f.Names() {
			if !seen[n] && !f.Profiles[n].Disabled {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// gatherCatalogs lists what each server offers: the one of -c/-u (names
// empty), or the server of each profile. incomplete says which lists a
// server declared but failed to give.
func gatherCatalogs(ctx context.Context, ios *iostreams.IOStreams, base ConnOptions, names []string) (servers []scan.Server, incomplete []string, err error) {
	// Nothing is called, so nothing is asked: the sessions' output is
	// dropped. They declare what a capable client declares (openToList):
	// a server may offer some tools only to such clients.
	quiet := &iostreams.IOStreams{In: ios.In, Out: io.Discard, ErrOut: ios.ErrOut}
	// One trace file for the run, each line naming its profile.
	shared := &sharedTrace{start: time.Now()}
	if len(names) == 0 {
		srv, notListed, err := gatherCatalog(ctx, ios, quiet, base, shared, "")
		if err != nil {
			return servers, incomplete, err
		}
		return []scan.Server{srv}, notListed, nil
	}
	for _, n := range names {
		conn := base
		conn.Profile = n
		srv, notListed, err := gatherCatalog(ctx, ios, quiet, conn, shared, n)
		if err != nil {
			return nil, nil, err
		}
		servers = append(servers, srv)
		incomplete = append(incomplete, notListed...)
	}
	return servers, incomplete, nil
}

// gatherCatalog lists what the server of conn offers, its session's
// output on quiet and its trace in shared, its messages naming it label
// (its profile; "" for the server of -c/-u, then named by what it says it
// is). incomplete says which lists it declared but failed to give.
func gatherCatalog(ctx context.Context, ios, quiet *iostreams.IOStreams, conn ConnOptions, shared *sharedTrace, label string) (srv scan.Server, incomplete []string, err error) {
	conn.traceShared, conn.traceServer = shared, label
	// Prepared on the command's own streams: its credentials are
	// hidden on them and in the trace.
	err = conn.prepare(ios)
	var s *session.Session
	if err == nil {
		s, err = conn.openToList(ctx, quiet, nil)
	}
	if err != nil {
		if label != "" {
			return srv, nil, fmt.Errorf("profile %q: %w", label, err)
		}
		return srv, nil, err
	}
	defer s.Close()
	got, err := gather(ctx, s)
	if err != nil {
		return srv, nil, err
	}
	if label == "" {
		label = conn.target().Describe()
		if si := got.ServerInfo(); si != nil && si.Name != "" {
			label = si.Name
		}
	}
	for _, m := range sortedListErrors(got.ListErrors) {
		incomplete = append(incomplete, fmt.Sprintf("%s: %s failed: %s", label, m, got.ListErrors[m]))
	}
	return scan.Server{Name: label, Catalog: &got.Listing}, incomplete, nil
}

func sortedListErrors(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scanTarget names what was scanned for the HTML report's header.
func scanTarget(opts *ScanOptions) string {
	if opts.Conn.Command != "" || opts.Conn.URL != "" {
		return opts.Conn.target().Describe()
	}
	return strings.Join(append(append([]string(nil), opts.Profiles...), opts.Catalogs...), ", ")
}
