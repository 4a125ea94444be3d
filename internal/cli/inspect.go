package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// InspectOptions are the options of `mcp-tester inspect`.
type InspectOptions struct {
	IO            *iostreams.IOStreams
	Conn          ConnOptions
	Format        string
	SARIFFile     string // where code scanning shows the findings (--sarif-file)
	HTML          string
	CheckIcons    bool
	DownloadIcons string
	Probe         bool
	MaxProbes     int
	MinScore      int
	// Samples (--sample) and Conn.Roots (--root) declare sampling and
	// roots, as in the lists.
	Samples []string
}

func newInspectCmd(ios *iostreams.IOStreams, runF func(context.Context, *InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Rate how well a server describes itself, from 0 to 100",
		Long: `Inspect lists everything a server offers and rates it from 0 to 100 on named
criteria: tool descriptions, input schemas, output schemas, annotations
(read-only, destructive, idempotent hints), titles, prompts, icons, the
protocol version and, when tools ask the user questions, whether they say
so. Each finding says what is wrong and what to do.

It also says which tools and prompts ask the user: from their descriptions,
and with --probe by calling the tools marked read-only and getting the
prompts with sample arguments (questions are declined) to see which answer
input_required. Tools not marked read-only are never called.

--check-icons fetches every icon (http, https and data: URIs only, 5 s and
1 MiB each) and checks that it is an image; --download-icons DIR also saves
them, named by a hash of their URL. --min-score N exits 1 below N, for CI.
--html FILE writes the report as one self-contained HTML page: the score,
each criterion with its points, and every finding with its advice.`,
		Example: `  mcp-tester inspect -c bin/manytools
  mcp-tester inspect -c bin/deployer --probe --check-icons
  mcp-tester inspect -c bin/manytools --format json --min-score 80
  mcp-tester inspect -c bin/manytools --format sarif > /tmp/inspect.sarif
  mcp-tester inspect -c bin/manytools --html /tmp/inspect.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInspect(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addCapabilityFlags(cmd, &opts.Conn)
	addRoundsFlag(cmd, &opts.Conn)
	addTasksFlag(cmd, &opts.Conn)
	addDeclareFlags(cmd, &opts.Conn, &opts.Samples)
	f := cmd.Flags()
	f.BoolVar(&opts.CheckIcons, "check-icons", false, "fetch every icon and check that it is an image")
	f.StringVar(&opts.DownloadIcons, "download-icons", "", "check the icons and save them in this directory")
	f.BoolVar(&opts.Probe, "probe", false, "call read-only tools and get prompts with sample arguments to see which ask the user")
	f.IntVar(&opts.MaxProbes, "max-probes", 20, "call at most this many tools, and get at most this many prompts, with --probe")
	f.IntVar(&opts.MinScore, "min-score", 0, "exit 1 when the score is below this")
	addFormatChoice(cmd, &opts.Format, "output format: text, json or sarif (code scanning)", report.Text, report.JSON, report.SARIF)
	addSARIFFileFlag(cmd, &opts.SARIFFile)
	addHTMLFlag(cmd, &opts.HTML)
	return cmd
}

func runInspect(ctx context.Context, opts *InspectOptions) error {
	if opts.MinScore < 0 || opts.MinScore > 100 {
		return usageErr("--min-score must be between 0 and 100")
	}
	if opts.MaxProbes < 0 {
		return usageErr("--max-probes must be 0 or more")
	}
	if err := checkOutPath("--html", opts.HTML); err != nil {
		return err
	}
	// Probe questions are declined quietly: the report tells of them. The
	// trace (-v) and warnings still go to stderr, as grade's and scan's do.
	quiet := &iostreams.IOStreams{In: opts.IO.In, Out: io.Discard, ErrOut: opts.IO.ErrOut}
	ans, err := declaring(opts.Samples)
	if err != nil {
		return err
	}
	s, err := opts.Conn.openToList(ctx, quiet, ans)
	if err != nil {
		return err
	}
	defer s.Close()
	srv, err := gather(ctx, s)
	if err != nil {
		return err
	}
	if opts.Probe {
		srv.Probes = append(probe(ctx, s, srv.Tools, opts.MaxProbes), probePrompts(ctx, s, srv.Prompts, opts.MaxProbes)...)
	}
	if opts.CheckIcons || opts.DownloadIcons != "" {
		srv.Icons = inspect.CheckIcons(ctx, inspect.Icons(srv), inspect.IconOptions{Dir: opts.DownloadIcons, ServerURL: opts.Conn.URL})
	}
	if err := ctx.Err(); err != nil {
		// Interrupted: what failed then (a list, a probe) is no finding
		// of the server, and a score of what was left is none.
		return err
	}
	rep := inspect.Evaluate(srv)
	rep.Name = inspectFlagName
	if err := writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteInspect(w, htmlMeta(opts.IO, "mcp-tester inspect", s.Target().Describe()), rep, srv.Probes, srv.Icons)
	}); err != nil {
		return err
	}
	err = emit(opts.IO, opts.Format, report.Writers{
		Text: rep.WriteText,
		JSON: func(w io.Writer) error {
			return printer.JSON(w, struct {
				*inspect.Report
				Icons  []inspect.IconCheck `json:"icons,omitempty"`
				Probes []inspect.Probe     `json:"probes,omitempty"`
			}{rep, srv.Icons, srv.Probes})
		},
		SARIF: rep, At: sarif.Anchor{File: opts.SARIFFile},
	})
	if err != nil {
		return err
	}
	if why := rep.Incomplete(); why != "" {
		// The server answered, wrongly: a score of what it did list is
		// no score of the server (as scan's incomplete scan).
		return &exitError{code: ExitFailed, err: fmt.Errorf("the inspection is incomplete, its score partial: %s", why)}
	}
	if rep.Score < opts.MinScore {
		return &exitError{code: ExitFailed, err: fmt.Errorf("score %d is below --min-score %d", rep.Score, opts.MinScore)}
	}
	return nil
}

// inspectFlagName names an option of inspect's report as the flag that
// sets it, for the report's advice.
func inspectFlagName(o inspect.Option) string {
	switch o {
	case inspect.OptionProbe:
		return "--probe"
	}
	return ""
}

// gather lists everything the server offers, every page (catalog.List):
// a list that fails is reported, a server that is gone ends the command.
func gather(ctx context.Context, s *session.Session) (*inspect.Server, error) {
	l, err := catalog.List(ctx, s, catalog.Options{})
	if err != nil {
		return nil, err
	}
	return &inspect.Server{Listing: *l}, nil
}

// probeTimeout bounds one probe, rounds included.
const probeTimeout = 10 * time.Second

// probe calls up to max tools marked read-only with sample arguments and
// notes the questions they ask (the session declines them).
func probe(ctx context.Context, s *session.Session, tools []*mcp.Tool, max int) []inspect.Probe {
	out := []inspect.Probe{}
	for _, t := range tools {
		if len(out) >= max {
			break
		}
		if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
			continue
		}
		args := schemaargs.Args(t.InputSchema)
		out = append(out, probed(ctx, inspect.Probe{Tool: t.Name, Args: args}, func(ctx context.Context) (*session.Call, error) {
			_, call, err := s.CallTool(ctx, t.Name, args, nil)
			return call, err
		}))
	}
	return out
}

// probePrompts gets up to max prompts with sample arguments
// (schemaargs.PromptArgs) and notes the questions they ask (declined).
func probePrompts(ctx context.Context, s *session.Session, prompts []*mcp.Prompt, max int) []inspect.Probe {
	var out []inspect.Probe
	for _, pr := range prompts {
		if len(out) >= max {
			break
		}
		args := schemaargs.PromptArgs(pr)
		out = append(out, probed(ctx, inspect.Probe{Prompt: pr.Name, Args: args}, func(ctx context.Context) (*session.Call, error) {
			_, call, err := s.GetPrompt(ctx, pr.Name, args, nil)
			return call, err
		}))
	}
	return out
}

// probed makes one probe with do, bounded by probeTimeout, and notes its
// error and the questions the server asked (the session declines them).
func probed(ctx context.Context, p inspect.Probe, do func(context.Context) (*session.Call, error)) inspect.Probe {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	call, err := do(ctx)
	if err != nil {
		p.Error = err.Error()
	}
	if call != nil {
		p.Questions = probeQuestions(call.Questions)
	}
	return p
}

// probeQuestions are the questions to the user among the server's
// requests while a probe ran: its elicitations. A request for the
// client's roots or for a model's reply (roots/list,
// sampling/createMessage) asks the user nothing, and the server may send
// it of the session rather than of the call (the reference server asks
// for the roots right after connecting, whatever runs then): as the audit
// does (it keeps elicitations apart from the other requests), it is no
// question of the probed tool.
func probeQuestions(entries []exchange.Entry) []inspect.Question {
	var out []inspect.Question
	for i := range entries {
		if q := &entries[i]; q.IsElicitation() {
			out = append(out, inspect.Question{Key: q.Key, Mode: q.Mode(), Message: q.Message()})
		}
	}
	return out
}
