package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/checks/grade"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/spf13/cobra"
)

// GradeOptions are the options of `mcp-tester grade`.
type GradeOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	// The audit's flags (see AuditOptions), and NoAudit to leave it out.
	auditFlags
	NoAudit    bool
	CheckIcons bool
	// Badge is where to write the SVG badge; BadgeLabel its left half.
	Badge      string
	BadgeLabel string
	// HTML is where to write the report as an HTML page (--html).
	HTML      string
	Format    string
	SARIFFile string // where code scanning shows the results (--sarif-file)
	// MinGrade fails (exit 1) a grade below this letter.
	MinGrade string
	Quiet    bool
}

func newGradeCmd(ios *iostreams.IOStreams, runF func(context.Context, *GradeOptions) error) *cobra.Command {
	opts := &GradeOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "grade",
		Short: "Grade a server from A to F, check by check, with an SVG badge",
		Long: `Grade runs what mcp-tester checks of a server and turns it into one grade, a
letter (A to F) and a score from 0 to 100, explained check by check:

  conformance   what the tester sees of the protocol: the version spoken,
                the lists the server declares, ping, tool schemas and names
  asking        the audit's twelve rules of asking (see mcp-tester audit)
  description   inspect's criteria: descriptions, schemas, annotations, …
  safety        the scan of what the server tells the model (mcp-tester scan)

A grade is only as good as its evidence. A check that could not be made
(no tool asked a question, so the rules of asking applied to nothing;
destructive tools skipped without --include; icons not fetched without
--check-icons; --no-audit) is "not checked": it never counts as passed,
the score is made of the checks that were made, and the grade says that
its evidence is partial. Some failures cap the letter whatever the score:
a high-severity scan finding (F), a failed rule of asking (C, or D for the
rules that keep users and secrets apart), a protocol failure (C).

--trace FILE writes every JSON-RPC message of the grade to one file, one
JSON line each, credentials hidden as in every trace: the session that
lists and pings, then each session of the audit, each line naming its
session ("list", "audit 2: no elicitation") in "session".

--badge FILE writes an SVG badge for a README, --html FILE the report as
one self-contained HTML page. The audit calls the server's tools
(destructive ones only when named with --include). On a terminal, the text
report's long lines are folded to its width, as the audit's; in a pipe, a
file or a CI log each stays one line.

Exit status: 0, or 1 when the grade is below --min-grade; 2 for bad
flags; 3 when the server could not be reached.`,
		Example: `  mcp-tester grade -c bin/deployer --include deploy --badge /tmp/mcp-grade.svg
  mcp-tester grade -c bin/manytools --no-audit --format json
  mcp-tester grade -c bin/deployer --min-grade C`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.noteDeadlineSet(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runGrade(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addRoundsFlag(cmd, &opts.Conn)
	addAuditFlags(cmd, &opts.auditFlags, "for the audit: ")
	f := cmd.Flags()
	f.BoolVar(&opts.NoAudit, "no-audit", false, "do not run the audit (it calls tools): its rules are not checked")
	f.BoolVar(&opts.CheckIcons, "check-icons", false, "fetch every icon and check that it is an image (else the icons are not checked)")
	f.StringVar(&opts.Badge, "badge", "", "write an SVG badge of the grade to this file")
	f.StringVar(&opts.BadgeLabel, "badge-label", "mcp grade", "the text on the badge's left half")
	addHTMLFlag(cmd, &opts.HTML)
	addFormatChoice(cmd, &opts.Format, "output format: text, json or sarif (code scanning)", report.Text, report.JSON, report.SARIF)
	addSARIFFileFlag(cmd, &opts.SARIFFile)
	f.StringVar(&opts.MinGrade, "min-grade", "", "exit 1 when the grade is below this letter (A, B, C, D)")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "do not show the audit's progress line on a terminal's stderr")
	return cmd
}

func runGrade(ctx context.Context, opts *GradeOptions) error {
	// A letter is a letter in either case: --min-grade b is B.
	opts.MinGrade = strings.ToUpper(opts.MinGrade)
	if opts.MinGrade != "" && !strings.Contains("ABCD", opts.MinGrade) || len(opts.MinGrade) > 1 {
		return usageErr("--min-grade %q: give a letter, A, B, C or D", opts.MinGrade)
	}
	if strings.TrimSpace(opts.BadgeLabel) == "" {
		return usageErr("--badge-label: give the text of the badge's left half")
	}
	for _, p := range [][2]string{{"--badge", opts.Badge}, {"--html", opts.HTML}} {
		if err := checkOutPath(p[0], p[1]); err != nil {
			return err
		}
	}
	ev, err := gradeEvidence(ctx, opts)
	if err != nil {
		return err
	}
	g := grade.Compute(ev)
	if err := writeReportFile("--badge", opts.Badge, nil, func(w io.Writer) error { return g.WriteBadge(w, opts.BadgeLabel) }); err != nil {
		return err
	}
	if err := writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteGrade(w, htmlMeta(opts.IO, "mcp-tester grade", opts.Conn.target().Describe()), g)
	}); err != nil {
		return err
	}
	err = emit(opts.IO, opts.Format, report.Writers{
		// Folded to a terminal's width, as the audit's; whole lines in a
		// pipe or a log.
		Text:  opts.IO.FoldToWidth(g.WriteText),
		JSON:  func(w io.Writer) error { return printer.JSON(w, g) },
		SARIF: g, At: sarif.Anchor{File: opts.SARIFFile},
	})
	if err != nil {
		return err
	}
	if opts.MinGrade != "" && g.Letter > opts.MinGrade {
		return &exitError{code: ExitFailed, err: fmt.Errorf("grade %s is below --min-grade %s", g.Letter, opts.MinGrade)}
	}
	return nil
}

// gradeEvidence makes every check of the grade: one session lists what
// the server offers and pings it (conformance, inspect, the scan), then
// the audit probes it with its own sessions.
func gradeEvidence(ctx context.Context, opts *GradeOptions) (grade.Evidence, error) {
	quiet := &iostreams.IOStreams{In: opts.IO.In, Out: io.Discard, ErrOut: opts.IO.ErrOut}
	// One trace for the listing session and the audit's, each line
	// naming its session; prepared on the command's own streams, which
	// hide its credentials.
	opts.Conn.traceShared, opts.Conn.traceSession = &sharedTrace{start: time.Now()}, "list"
	if err := opts.Conn.prepare(opts.IO); err != nil {
		return grade.Evidence{}, err
	}
	s, err := opts.Conn.openToList(ctx, quiet, nil)
	if err != nil {
		return grade.Evidence{}, err
	}
	srv, err := gather(ctx, s)
	if err != nil {
		s.Close()
		return grade.Evidence{}, err
	}
	ev := grade.Evidence{Observed: observed(s, srv), Name: gradeFlagName, ClientCapabilities: srv.Declared}
	if err := s.Ping(ctx); err != nil {
		if session.KindOf(err) == session.KindUnreachable {
			s.Close()
			return grade.Evidence{}, err
		}
		ev.Observed.PingErr = err.Error()
	}
	s.Close()
	if opts.CheckIcons {
		srv.Icons = inspect.CheckIcons(ctx, inspect.Icons(srv), inspect.IconOptions{ServerURL: opts.Conn.URL})
		ev.IconsChecked = true
	}
	name := ""
	if srv.Info != nil && srv.Info.ServerInfo != nil {
		ev.Server, ev.Version = srv.Info.ServerInfo.Name, srv.Info.ServerInfo.Version
		name = ev.Server
	}
	if name == "" {
		name = opts.Conn.target().Describe()
	}
	ev.Scan = scan.Scan(scan.Server{Name: name, Catalog: &srv.Listing})
	if opts.NoAudit {
		ev.AuditWhy = "--no-audit"
		ev.Inspect = inspect.Evaluate(srv)
		return ev, nil
	}
	ao := &AuditOptions{IO: opts.IO, Conn: opts.Conn, auditFlags: opts.auditFlags, Format: "text", Quiet: opts.Quiet}
	aopts, err := ao.auditOptions()
	if err != nil {
		return grade.Evidence{}, err
	}
	rep, err := runAuditShowing(ctx, opts.IO, opts.Quiet, aopts)
	if err != nil {
		return grade.Evidence{}, auditNotRun(err)
	}
	ev.Audit = rep
	// What the audit saw asking is what inspect's probes would have seen:
	// inspect then knows which tools and prompts ask without saying so.
	srv.Probes = askedProbes(rep)
	ev.Inspect = inspect.Evaluate(srv)
	return ev, nil
}

// gradeFlagName names an option of the grade as the flag that sets it, for
// the checks not made.
func gradeFlagName(o grade.Option) string {
	switch o {
	case grade.OptionCheckIcons:
		return "--check-icons"
	}
	return ""
}

// askedProbes are the tools and prompts the audit saw asking, as inspect's
// probes (an empty list, not nil: they were looked at).
func askedProbes(rep *audit.Report) []inspect.Probe {
	out := []inspect.Probe{}
	for _, s := range rep.Subjects {
		if !s.Asks {
			continue
		}
		q := []inspect.Question{{Mode: "form", Message: "(seen asking by the audit)"}}
		switch s.Kind {
		case "tool":
			out = append(out, inspect.Probe{Tool: s.Name, Questions: q})
		case "prompt":
			out = append(out, inspect.Probe{Prompt: s.Name, Questions: q})
		}
	}
	return out
}

// observed is the protocol conformance one session saw.
func observed(s *session.Session, srv *inspect.Server) grade.Observed {
	o := grade.Observed{Protocol: s.ProtocolVersion(), ListErrors: srv.ListErrors, Tools: srv.Tools}
	caps := s.ServerCapabilities()
	if caps.Tools != nil {
		o.Declared = append(o.Declared, "tools/list")
	}
	if caps.Prompts != nil {
		o.Declared = append(o.Declared, "prompts/list")
	}
	if caps.Resources != nil {
		o.Declared = append(o.Declared, "resources/list", "resources/templates/list")
	}
	return o
}
