package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/client/trace"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ConnOptions are the flags every command that talks to a server shares.
type ConnOptions struct {
	// Progress asks for progress on tool calls and prints it (--progress).
	Progress  bool
	Command   string
	URL       string
	Headers   []string
	Transport string
	Protocol  string
	Timeout   time.Duration
	// ConnectTimeout bounds starting or reaching the server and the
	// initialize handshake (--connect-timeout); not given, the larger of
	// a minute and --timeout (session.Options.ConnectLimit).
	ConnectTimeout time.Duration
	MaxRounds      int
	NoURL          bool
	NoElicitation  bool
	NoValidate     bool
	NoTasks        bool
	// Roots answer roots/list (--root URI[=NAME]); none given: roots are
	// not declared.
	Roots []string
	// Profile names a profile of mcp-tester.yml; its values fill the
	// flags that were not given (see profile.go).
	Profile string
	// TraceFile, Verbose and ShowState choose where the JSON-RPC trace goes
	// and whether it shows requestState (see trace.go).
	TraceFile string
	Verbose   bool
	ShowState bool
	// ShowSecrets shows credentials in the trace (--show-secrets).
	ShowSecrets bool
	// Raw prints results as the server sent them (see trace.go).
	Raw bool
	// Auth says how to log in to an HTTP server that requires OAuth (see
	// login.go).
	Auth LoginOptions
	// JSON is set by commands whose stdout carries JSON: the [ELICIT]
	// lines then go to stderr.
	JSON bool

	// listing is set by the commands that read a server's catalog
	// (scan, inspect, catalog, the lists, completion, grade): their
	// sessions declare every client capability the tester can handle
	// (elicitation, sampling, roots), so that each of them sees what a
	// capable client sees, and the same catalog. Nothing is called, so
	// nothing is answered: a question would be declined.
	listing bool

	flags      *pflag.FlagSet   // tells flags given from defaults
	middleware []mcp.Middleware // for commands that listen to notifications
	// running is the task the session last saw running (not ended), for
	// the line an interrupt leaves (taskLeft); made with the session's
	// options.
	running  *runningTask
	recorder *trace.Recorder // the trace, once sessionOptions made it
	traceTo  io.Writer       // where the trace goes, once prepare began it
	// traceShared, traceServer and traceSession: the trace file is the
	// run's, shared by several sessions (see sharedTrace), and the names
	// this session's lines carry.
	traceShared  *sharedTrace
	traceServer  string
	traceSession string
	noted        map[string]bool // deprecation notes already printed
	prepared     bool            // the profile is applied and the trace begun
	// profiles are the values of every -p given (profileFlag), and
	// oneServer the command that reads one server, for the error.
	profiles  []string
	oneServer string
	// connectNone: a profile gave connect_timeout 0 (no limit).
	connectNone bool
}

// addConnFlags binds what every command that connects takes: how to reach
// the server (addTargetFlags) and where the trace goes (addTraceFlags).
func addConnFlags(cmd *cobra.Command, o *ConnOptions) {
	addTargetFlags(cmd, o)
	addTraceFlags(cmd, o)
}

// addTargetFlags binds how to reach a server: -c, -u, -H, --transport,
// --protocol, --timeout, -p and the login flags (login.go).
func addTargetFlags(cmd *cobra.Command, o *ConnOptions) {
	addServerFlags(cmd, o)
	cmd.Flags().VarP(&profileFlag{o: o, cmd: cmd}, "profile", "p", "take the server and its settings from this profile of mcp-tester.yml (flags given win)")
	_ = cmd.RegisterFlagCompletionFunc("profile", completeProfiles)
}

// profileFlag is the -p of a command that reads one server: a second -p
// does not silently replace the first (pflag's way with a string), it is
// refused when the profile would be applied (applyProfile), naming both.
type profileFlag struct {
	o   *ConnOptions
	cmd *cobra.Command
}

func (p *profileFlag) String() string { return p.o.Profile }
func (p *profileFlag) Type() string   { return "string" }

func (p *profileFlag) Set(v string) error {
	p.o.Profile = v
	p.o.profiles = append(p.o.profiles, v)
	if len(p.o.profiles) == 2 {
		p.o.oneServer = strings.TrimPrefix(p.cmd.CommandPath(), p.cmd.Root().Name()+" ")
	}
	return nil
}

// checkOneProfile refuses -p given more than once to a command that reads
// one server.
func (o *ConnOptions) checkOneProfile() error {
	if len(o.profiles) < 2 {
		return nil
	}
	return usageErr("--profile given %d times (%s): %s reads one server; give one profile (scan reads several)", len(o.profiles), strings.Join(o.profiles, ", "), o.oneServer)
}

// addServerFlags binds the flags of addTargetFlags but -p, for a command
// that takes profiles its own way (scan: several at once).
func addServerFlags(cmd *cobra.Command, o *ConnOptions) {
	f := cmd.Flags()
	o.flags = f
	f.StringVarP(&o.Command, "command", "c", "", "start a stdio server with this shell command line")
	f.StringVarP(&o.URL, "url", "u", "", "connect to an HTTP server at this URL")
	stringsVarP(f, &o.Headers, "header", "H", `send "Name: value" with every HTTP request (repeatable)`)
	f.StringVar(&o.Transport, "transport", target.TransportAuto, "HTTP transport: auto, streamable or sse")
	f.StringVar(&o.Protocol, "protocol", "", "protocol version to speak (default: the newest, 2026-07-28)")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "time limit for each request, once connected (0: none)")
	f.DurationVar(&o.ConnectTimeout, "connect-timeout", 0, "time limit for starting or reaching the server and the initialize handshake (default: the larger of 1m and --timeout; 0: none)")
	addLoginFlags(cmd, &o.Auth)
}

// addCapabilityFlags binds what the tester declares it can be asked
// (--no-url, --no-elicitation), for commands whose requests may ask.
func addCapabilityFlags(cmd *cobra.Command, o *ConnOptions) {
	f := cmd.Flags()
	f.BoolVar(&o.NoURL, "no-url", false, "declare form elicitation only, no URL mode")
	f.BoolVar(&o.NoElicitation, "no-elicitation", false, "declare no elicitation at all")
}

// addRoundsFlag binds --max-rounds, for commands that drive the rounds of
// a call.
func addRoundsFlag(cmd *cobra.Command, o *ConnOptions) {
	cmd.Flags().IntVar(&o.MaxRounds, "max-rounds", 10, fmt.Sprintf("stop a call whose server keeps asking after this many rounds (at most %d)", maxRoundsCap))
}

// maxRoundsCap is the most --max-rounds takes: a hundred times the
// default. Each round of a call is kept (its questions and answers, for
// the report and the exchange log), so the bound on the rounds is also one
// on what a server that keeps asking makes the tester hold; no flow a
// person answers comes near it.
const maxRoundsCap = 1000

// checkMaxRounds refuses a --max-rounds below 1 (when given: zero, when
// the command has none, is the session's default) or above maxRoundsCap.
func checkMaxRounds(n int, given bool) error {
	switch {
	case n < 0 || given && n < 1:
		return usageErr("--max-rounds must be at least 1")
	case n > maxRoundsCap:
		return usageErr("--max-rounds %d: at most %d (the rounds of one call; each is kept for the report)", n, maxRoundsCap)
	}
	return nil
}

// addValidateFlag binds --no-validate, for commands that send answers.
func addValidateFlag(cmd *cobra.Command, o *ConnOptions) {
	cmd.Flags().BoolVar(&o.NoValidate, "no-validate", false, "send answers without checking them against the form's schema (defaults are still filled in: a script's elicit_response … exact sends an answer as written); call: send --args without checking them against the tool's input schema")
}

// addTasksFlag binds --no-tasks, for commands that call tools.
func addTasksFlag(cmd *cobra.Command, o *ConnOptions) {
	cmd.Flags().BoolVar(&o.NoTasks, "no-tasks", false, "run no tool as a task (neither the tasks extension nor the tasks of protocol 2025-11-25): tools run synchronously")
}

// addAskFlags binds the flags of commands that call tools and answer what
// they ask: the capabilities declared, --max-rounds, --no-validate and
// --no-tasks.
func addAskFlags(cmd *cobra.Command, o *ConnOptions) {
	addCapabilityFlags(cmd, o)
	addRoundsFlag(cmd, o)
	addValidateFlag(cmd, o)
	addTasksFlag(cmd, o)
}

// given reports whether the flag name was given on the command line.
func (o *ConnOptions) given(name string) bool {
	return o.flags != nil && o.flags.Changed(name)
}

// addRootFlag binds --root, the answer to the deprecated roots/list.
func addRootFlag(cmd *cobra.Command, o *ConnOptions) {
	stringsVar(cmd.Flags(), &o.Roots, "root",
		"answer roots/list with this root, URI or URI=NAME (repeatable)")
}

// addProgressFlag binds --progress.
func addProgressFlag(cmd *cobra.Command, o *ConnOptions) {
	cmd.Flags().BoolVar(&o.Progress, "progress", false,
		"ask for progress on tool calls and print the server's progress notifications on stderr as [PROGRESS] lines")
}

// progressPrinter prints a progress notification as a [PROGRESS] line on
// stderr: what is shown of it is bounded (maxShown), and a notification
// that says again what the last one said is not printed again.
func progressPrinter(io *iostreams.IOStreams) func(session.Progress) {
	var mu sync.Mutex
	last := ""
	return func(p session.Progress) {
		line := p.String()
		mu.Lock()
		defer mu.Unlock()
		if line == last {
			return
		}
		last = line
		fmt.Fprintf(io.ErrOut, "[PROGRESS] %s\n", termsafe.Clip(line, maxShown))
	}
}

// maxRoots bounds --root.
const maxRoots = 1000

// roots parses the --root answers; nil when none was given.
//
//lint:ignore SA1019 roots are deprecated but still answered while servers ask
func (o *ConnOptions) roots() ([]*mcp.Root, error) {
	if len(o.Roots) > maxRoots {
		return nil, usageErr("--root: %d roots, at most %d", len(o.Roots), maxRoots)
	}
	var out []*mcp.Root //lint:ignore SA1019 roots are deprecated but still answered
	for _, t := range o.Roots {
		r, err := answer.ParseRoot(t)
		if err != nil {
			return nil, usageErr("--root: %v", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// deprecationNote tells once per command that the server used a feature
// deprecated as of 2026-07-28.
func (o *ConnOptions) deprecationNote(io *iostreams.IOStreams) func(string) {
	var mu sync.Mutex
	return func(feature string) {
		mu.Lock()
		defer mu.Unlock()
		if o.noted == nil {
			o.noted = map[string]bool{}
		}
		if o.noted[feature] {
			return
		}
		o.noted[feature] = true
		what := "sampling (sampling/createMessage)"
		if feature == exchange.AsksRoots {
			what = "roots (roots/list)"
		}
		fmt.Fprintf(io.ErrOut, "mcp-tester: note: the server asked for %s, which protocol 2026-07-28 deprecates; it keeps working until at least 2027-07-28\n", what)
	}
}

func (o *ConnOptions) target() *target.Target {
	return &target.Target{Command: o.Command, URL: o.URL, Headers: o.Headers, Transport: o.Transport, Login: o.Auth.built, Name: targetFlagName}
}

// targetFlagName names a field of the target as the flag that sets it, for
// the target's errors.
func targetFlagName(o target.Option) string {
	switch o {
	case target.OptionURL:
		return "-u"
	}
	return ""
}

// withLogin builds the login an HTTP target uses (once) and returns the
// target.
func (o *ConnOptions) withLogin(ios *iostreams.IOStreams) (*target.Target, error) {
	if o.URL != "" && o.Command == "" {
		l, err := o.Auth.build(ios)
		if err != nil {
			return nil, err
		}
		if !o.ShowSecrets && l.OnToken == nil {
			// The tokens of the login store and of new logins are
			// hidden on output as the command line's are.
			l.OnToken = ios.AddSecrets
		}
	}
	return o.target(), nil
}

// stdoutIsDocument tells whether the command prints a machine-readable
// document on stdout: JSON set by the command (call's --raw too), or any
// --format other than text, whichever command declares it.
func (o *ConnOptions) stdoutIsDocument() bool {
	if o.JSON {
		return true
	}
	if o.flags == nil {
		return false
	}
	f := o.flags.Lookup("format")
	return f != nil && f.Value.String() != report.Text
}

// open checks the flags and opens a session whose questions are printed as
// [ELICIT] lines (to stdout, or to stderr when stdout carries JSON) and
// answered by ans.
func (o *ConnOptions) open(ctx context.Context, io *iostreams.IOStreams, ans answer.Answerer) (*session.Session, error) {
	opts, err := o.sessionOptions(io)
	if err != nil {
		return nil, err
	}
	lines := io.Out
	if o.stdoutIsDocument() {
		// stdout carries one document (JSON, SARIF, JUnit …): the
		// questions go to stderr, and into the document where it has them.
		lines = io.ErrOut
	}
	log := &exchange.Log{}
	log.Observe(func(e exchange.Entry) {
		if e.Answer == nil && e.IsElicitation() {
			// A question that got no answer ends the call with an error
			// that says why; only the JSON document lists it.
			return
		}
		printer.Question(lines, e)
		urlNotes(io.ErrOut, e)
		if e.Note != "" {
			fmt.Fprintf(io.ErrOut, "mcp-tester: %s: %s\n", questionName(e), termsafe.Line(e.Note))
		}
	})
	opts.Log = log
	opts.Answerer = ans
	return session.Open(ctx, opts)
}

// openToList opens a session to read the server's catalog (see
// ConnOptions.listing): it declares every client capability the tester
// can handle, whichever command lists.
func (o *ConnOptions) openToList(ctx context.Context, io *iostreams.IOStreams, ans answer.Answerer) (*session.Session, error) {
	o.listing = true
	return o.open(ctx, io, ans)
}

// openAnswered opens a session whose questions a answers: its --elicit
// answers, then a person (AnswerOptions.answerer).
func (o *ConnOptions) openAnswered(ctx context.Context, io *iostreams.IOStreams, a *AnswerOptions) (*session.Session, error) {
	ans, err := a.answerer(io)
	if err != nil {
		return nil, err
	}
	return o.open(ctx, io, ans)
}

// sessionOptions checks the flags and turns them into session options with
// no log and no answerer.
func (o *ConnOptions) sessionOptions(io *iostreams.IOStreams) (session.Options, error) {
	if err := o.prepare(io); err != nil {
		return session.Options{}, err
	}
	t, err := o.withLogin(io)
	if err != nil {
		return session.Options{}, err
	}
	if err := t.Validate(); err != nil {
		return session.Options{}, targetUsage(err)
	}
	if err := checkMaxRounds(o.MaxRounds, o.given("max-rounds")); err != nil {
		return session.Options{}, err
	}
	if err := checkProtocolFlag(o.Protocol); err != nil {
		return session.Options{}, err
	}
	caps := session.Capabilities{Form: !o.NoElicitation, URL: !o.NoElicitation && !o.NoURL}
	roots, err := o.roots()
	if err != nil {
		return session.Options{}, err
	}
	if o.listing && roots == nil {
		roots = []*mcp.Root{} //lint:ignore SA1019 roots are deprecated but still declared, as servers offer tools by them
	}
	o.running = &runningTask{}
	var onProgress func(session.Progress)
	if o.Progress {
		onProgress = progressPrinter(io)
	}
	return session.Options{
		OnProgress:      onProgress,
		DeclareSampling: o.listing,
		KeepListed:      o.listing,
		Roots:           roots,
		Deprecated:      o.deprecationNote(io),
		Target:          t,
		Protocol:        o.Protocol,
		Hint:            flagHint,
		Capabilities:    caps,
		Validate:        !o.NoValidate,
		Tasks:           !o.NoTasks,
		OnTask:          o.running.observe(taskStatusPrinter(io)),
		MaxRounds:       o.MaxRounds,
		Timeout:         o.Timeout,
		ConnectTimeout:  o.connectTimeout(),
		ClientName:      "mcp-tester",
		ClientVersion:   Version(),
		Warn:            func(msg string) { fmt.Fprintf(io.ErrOut, "mcp-tester: warning: %s\n", termsafe.Line(msg)) },
		Middleware:      o.middleware,
		Observe:         o.observer(),
	}, nil
}

// connectTimeout is --connect-timeout as session.Options.ConnectTimeout
// takes it: not given, zero (the larger of a minute and --timeout); given
// as 0, negative (no limit).
func (o *ConnOptions) connectTimeout() time.Duration {
	switch {
	case o.ConnectTimeout > 0:
		return o.ConnectTimeout
	case o.given("connect-timeout") || o.connectNone:
		return -1
	}
	return 0
}

func questionName(e exchange.Entry) string {
	if e.Key != "" {
		return fmt.Sprintf("question %q", e.Key)
	}
	return fmt.Sprintf("question %q", e.Message())
}

// targetUsage words a target's refusal (target.Validate) in the flags that
// set it: a usage error.
func targetUsage(err error) error {
	var fe *target.FieldError
	switch {
	case errors.Is(err, target.ErrNoServer):
		return usageErr(`no server given: use -c/--command "CMD" for a stdio server or -u/--url URL for an HTTP server`)
	case errors.Is(err, target.ErrTwoServers):
		return usageErr("give either -c/--command or -u/--url, not both")
	case errors.As(err, &fe):
		return usageErr("--%s %q: %s", strings.ToLower(fe.Field), fe.Value, fe.Problem)
	}
	return usageErr("%v", err)
}

// checkProtocolFlag refuses a --protocol the tester does not speak: a usage
// error, before anything is started.
func checkProtocolFlag(v string) error {
	if session.CheckProtocol(v) != nil {
		return usageErr("--protocol %q: this tester speaks %v", v, mcp.SupportedProtocolVersions())
	}
	return nil
}

// flagHint words the way on that a session's error points at as the
// command line's flags (session.Options.Hint).
func flagHint(s session.Setting, value string) string {
	switch s {
	case session.SettingSampling:
		return "give --sample TEXT to answer it"
	case session.SettingSampleReplies:
		return "give one more --sample (or sample_response), or run with a person at the terminal"
	case session.SettingRoots:
		return "give --root URI to answer it"
	case session.SettingProtocol:
		if value != "" {
			return "give --protocol " + value
		}
		return "leave --protocol out to speak the newest version both know"
	case session.SettingMaxRounds:
		return "raise --max-rounds if this is intended"
	case session.SettingTasks:
		return "leave out --no-tasks"
	case session.SettingValidate:
		return "use --no-validate to send it anyway"
	case session.SettingConnectTimeout:
		return "raise --connect-timeout if the server needs longer to start"
	}
	return ""
}
