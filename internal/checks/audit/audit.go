package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/client/toolargs"
	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/text/optname"
	"github.com/askback/askback/internal/text/suggest"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Option is one of the [Options] an error or a warning of the audit
// points at; [Options.Name] words it for the caller.
type Option int

// The options an error or a warning points at.
const (
	// OptionInclude is [Options.Include].
	OptionInclude Option = iota + 1
	// OptionArgs is [Options.Args].
	OptionArgs
	// OptionOtherHeaders is [Options.OtherHeaders].
	OptionOtherHeaders
	// OptionReadOnly is [Options.ReadOnly].
	OptionReadOnly
	// OptionURL is the target's URL ([target.Target.URL]).
	OptionURL
	// OptionOtherLogin is [Options.OtherLogin].
	OptionOtherLogin
	// OptionProtocol is [Options.Protocol].
	OptionProtocol
	// OptionSamples is [Options.Samples].
	OptionSamples
	// OptionRoots is [Options.Roots].
	OptionRoots
)

// String names o as a field of [Options].
func (o Option) String() string {
	switch o {
	case OptionInclude:
		return "Include"
	case OptionArgs:
		return "Args"
	case OptionOtherHeaders:
		return "OtherHeaders"
	case OptionReadOnly:
		return "ReadOnly"
	case OptionURL:
		return "Target.URL"
	case OptionOtherLogin:
		return "OtherLogin"
	case OptionProtocol:
		return "Protocol"
	case OptionSamples:
		return "Samples"
	case OptionRoots:
		return "Roots"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// Options configure an audit.
type Options struct {
	// Target is the server.
	Target *target.Target
	// OtherHeaders are the "Name: value" headers of a second identity (HTTP
	// only). They replace the target's headers of the same names; with
	// them the audit checks that state issued to one user is refused for
	// the other.
	OtherHeaders []string
	// OtherLogin is a second identity's login (HTTP only), used instead of
	// the target's login for the same check.
	OtherLogin *login.Login
	// Protocol is the protocol version to ask for; empty means the newest.
	Protocol string
	// Hint words the way on that a probe's session error points at, in
	// the caller's terms (session.Options.Hint).
	Hint session.Hint
	// Name names one of these options in the caller's terms, for the
	// errors and warnings that point at it (a command line's flag, a
	// test's option field); nil names them as this struct's fields.
	Name optname.Namer[Option]
	// Timeout bounds each request once connected; zero means no limit.
	Timeout time.Duration
	// ConnectTimeout bounds each probe's connect: starting or reaching
	// the server and the initialize handshake (session.Options
	// ConnectTimeout: zero, the larger of a minute and Timeout; negative,
	// no limit).
	ConnectTimeout time.Duration
	// Deadline bounds the audit's checks, from when the server has
	// answered its first connect and its lists; zero means no limit. When
	// it runs out the audit stops probing: the checks it did not finish
	// are Incomplete (never passed) and Report.Stopped says why.
	Deadline time.Duration
	// MaxRounds bounds the rounds of one call; zero means 10.
	MaxRounds int
	// Args are the arguments to call a tool or get a prompt with, by name.
	// Subjects not listed get arguments synthesized from their schema. A
	// tool's arguments that do not fit its input schema stop the audit
	// before it calls anything (UsageError): a call the server refuses
	// would check nothing.
	Args map[string]map[string]any
	// Include names destructive tools the audit may call; "*" allows every
	// tool. Tools whose annotations say destructive (destructiveHint true,
	// or absent without readOnlyHint) are never called otherwise.
	Include []string
	// ReadOnly calls only the tools marked readOnlyHint: true (and those
	// Include names); the others are skipped.
	ReadOnly bool
	// Samples, when not empty, make every probe that declares elicitation
	// declare sampling too, and answer the server's requests for a model
	// reply with them, in turn (each subject is called many times). Roots
	// does the same for roots. The probe of rule 4, which declares no
	// elicitation, declares neither: any request there fails the rule.
	// Sampling and roots are deprecated as of 2026-07-28.
	Samples []answer.Sample
	Roots   []*mcp.Root //lint:ignore SA1019 answered while servers ask
	// Warn, if set, is told before the audit calls anything which tools it
	// will call that are neither marked read-only nor destructive (and so
	// may change what the server holds), whatever Progress is.
	Warn func(line string)
	// ClientName and ClientVersion identify the audit to the server.
	ClientName, ClientVersion string
	// Progress, if set, is told what the audit is doing, one line at a time.
	Progress func(line string)
	// Trace, if set, gives each probe session, as it opens, the observer
	// of its messages for a trace (mcp-tester grade --trace); name says
	// which session it is ("audit 2: no elicitation").
	Trace func(name string) wire.Observer
}

// UnreachableError says that the audit could not run: the server could not
// be reached, or its first requests (the connect, the lists) failed; the
// session error it wraps (session.KindOf) tells a server that was not
// reached from one that answered wrongly.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return "the audit could not run: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// UsageError says that the options name something the server does not
// have: the audit stops before it calls anything.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// auditor holds the state of one audit.
type auditor struct {
	opts     Options
	modern   bool // the server speaks 2026-07-28 or newer
	protocol string
	mu       sync.Mutex
	secrets  []string // credentials the audit sends, which URLs must not carry (see credentials)
	pool     map[poolKey]*probe
	sessions int           // probe sessions opened, for their names in a trace
	extra    *extraAnswers // answers sampling and roots (Samples, Roots), or nil
	rep      *Report
	// cut reports that the audit's time limit (Options.Deadline) has run
	// out.
	cut func() bool
}

// Run audits the server described by opts. It returns an
// *UnreachableError when the server cannot be reached; a report with
// failures is not an error.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := validate(opts); err != nil {
		return nil, err
	}
	opts = withDefaults(opts)
	a := &auditor{opts: opts, secrets: headerSecrets(opts.Target.Headers, opts.OtherHeaders), extra: newExtraAnswers(opts.Samples, opts.Roots)}
	a.cut = func() bool { return false }

	// The connect and the lists are bounded by ConnectTimeout and Timeout;
	// Deadline bounds the checks, from when the server has answered them:
	// a server that is slow to start (a busy machine, a download) leaves
	// the checks their time.
	p, err := a.open(ctx, capsAll, opts.Target)
	if err != nil {
		return nil, &UnreachableError{Err: err}
	}
	defer p.close()
	// Later probes use the transport that worked (HTTP+SSE for a legacy
	// server) without trying Streamable HTTP first.
	opts.Target = p.s.Target()
	a.adopt(opts.Target, p.s.ProtocolVersion())
	rep := &Report{Target: opts.Target.Describe(), Protocol: a.protocol, name: opts.Name}
	a.rep = rep
	rep.Server = p.s.ServerName()

	subjects, err := a.list(ctx, p)
	if err != nil {
		return nil, &UnreachableError{Err: err}
	}
	if err := checkNames(opts, subjects); err != nil {
		return nil, &UsageError{Err: err}
	}
	if opts.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.Deadline, errDeadline)
		defer cancel()
	}
	a.cut = func() bool { return errors.Is(context.Cause(ctx), errDeadline) }
	a.warnWriters(subjects)
	server := a.placement(ctx, p, subjects)
	p.close()
	defer a.closePool()
	a.stop(server)

	if err := a.auditAll(ctx, subjects); err != nil {
		return nil, err
	}
	rep.Subjects = append(rep.Subjects, server)
	return rep, nil
}

// withDefaults is opts with the rounds' bound and the client's name set
// when left out.
func withDefaults(opts Options) Options {
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = 10
	}
	if opts.ClientName == "" {
		opts.ClientName = "mcp-tester-audit"
	}
	return opts
}

// adopt makes the later probes reach the server as the first one did:
// by t (the transport that worked), speaking protocol.
func (a *auditor) adopt(t *target.Target, protocol string) {
	a.opts.Target = t
	a.protocol = protocol
	a.modern = protocol >= "2026-07-28"
	if !a.modern && t.URL != "" && protocol != "" {
		// Later probes send the negotiated version in every request, as a
		// client of that version must (the SDK does it only for sessions it
		// is not wrapped around).
		a.opts.Target = withHeader(t, "Mcp-Protocol-Version", protocol)
	}
}

// validate refuses options the audit cannot run with: no target, or a
// second identity's headers for a server that is not HTTP.
func validate(opts Options) error {
	if opts.Target == nil {
		return errors.New("audit: no target")
	}
	if err := opts.Target.Validate(); err != nil {
		return err
	}
	if len(opts.OtherHeaders) == 0 {
		return nil
	}
	if opts.Target.URL == "" {
		return fmt.Errorf("%s needs an HTTP server (%s): a stdio server has no users to tell apart", opts.Name.Word(OptionOtherHeaders), opts.Name.Word(OptionURL))
	}
	if _, err := target.ParseHeaders(opts.OtherHeaders); err != nil {
		return fmt.Errorf("%s: %w", opts.Name.Word(OptionOtherHeaders), err)
	}
	return nil
}

// auditAll audits each subject not skipped, in order, and adds it to the
// report: once the time limit has run out, the rest are not run. It
// returns an *UnreachableError when the context ends.
func (a *auditor) auditAll(ctx context.Context, subjects []*subject) error {
	rep := a.rep
	toAudit, audited := 0, 0
	for _, s := range subjects {
		if s.report.Skipped == "" {
			toAudit++
		}
	}
	for _, s := range subjects {
		rep.Subjects = append(rep.Subjects, s.report)
		if s.report.Skipped != "" {
			continue
		}
		if rep.Stopped != "" {
			notRun(s.report, rep.Stopped)
			continue
		}
		audited++
		a.progress("auditing %s (%d of %d)", s.report.Label(), audited, toAudit)
		a.auditSubject(ctx, s)
		if a.stop(s.report) {
			continue
		}
		if ctx.Err() != nil {
			return &UnreachableError{Err: ctx.Err()}
		}
	}
	return nil
}

// errDeadline is the cause of the audit's context when Options.Deadline
// runs out.
var errDeadline = errors.New("the audit's time limit ran out")

// stop reports whether the audit's time limit has run out. The first time
// it has, it says so in the report and on the progress lines; every time,
// it turns the results of s, audited (in part) after the limit, that are
// not failures into Incomplete: a probe cut short proves nothing, and a
// pass or an n/a drawn from it would claim what was not checked. A failure
// stands: its evidence came back before.
func (a *auditor) stop(s *Subject) bool {
	if !a.cut() {
		return false
	}
	if a.rep.Stopped == "" {
		a.rep.Stopped = fmt.Sprintf("the audit's time limit (%s) ran out", a.opts.Deadline)
		a.progress("%s: the checks not finished are reported as not checked", a.rep.Stopped)
	}
	for _, res := range s.Results {
		if res.Status != Fail {
			res.Status, res.Note = Incomplete, "not checked: "+a.rep.Stopped
		}
	}
	return true
}

// notRun gives every rule of s, which the audit did not reach, the status
// Incomplete and why.
func notRun(s *Subject, why string) {
	for _, r := range subjectRules() {
		s.Results = append(s.Results, &Result{Rule: r, Status: Incomplete, Note: "not checked: " + why})
	}
}

// warnWriters says which tools the audit will call that are neither marked
// read-only nor destructive (those --include names aside): the spec's
// annotations let such a tool change what the server holds.
func (a *auditor) warnWriters(subjects []*subject) {
	if a.opts.Warn == nil {
		return
	}
	var names []string
	for _, s := range subjects {
		if s.kind == "tool" && s.report.Skipped == "" && !s.readOnly && !slices.Contains(a.opts.Include, s.name) {
			names = append(names, s.name)
		}
	}
	if len(names) == 0 {
		return
	}
	shown := quoteAll(names[:min(len(names), 10)])
	list := strings.Join(shown, ", ")
	if len(names) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	a.opts.Warn(fmt.Sprintf("the audit calls %d tool(s) that are neither marked read-only nor destructive, and may change what the server holds: %s; %s calls only the tools marked read-only", len(names), termsafe.Line(list), a.opts.Name.Word(OptionReadOnly)))
}

// checkNames refuses an Include or Args that names no tool, prompt,
// resource or resource template of the server, naming the one a typo most
// likely meant: it would otherwise be skipped silently, and the audit would
// not test what it was asked to. A tool's --args must fit its input
// schema.
func checkNames(opts Options, subjects []*subject) error {
	have, names := offeredNames(subjects)
	known := offered(names)
	for _, n := range opts.Include {
		if n != "*" && !have[n] {
			return fmt.Errorf("%s %q: the server has no tool, prompt or resource of that name (%s", opts.Name.Word(OptionInclude), n, meant(known, n, names))
		}
	}
	var argNames []string
	for n := range opts.Args {
		argNames = append(argNames, n)
	}
	slices.Sort(argNames)
	for _, n := range argNames {
		if !have[n] {
			return fmt.Errorf("%s %q: the server has no tool, prompt or resource template of that name (%s", opts.Name.Word(OptionArgs), n+"=…", meant(known, n, names))
		}
	}
	return checkToolArgs(opts, subjects)
}

// offeredNames collects the names of subjects and their templates: as a
// set, and in order.
func offeredNames(subjects []*subject) (have map[string]bool, names []string) {
	have = map[string]bool{}
	for _, s := range subjects {
		for _, n := range []string{s.name, s.template} {
			if n != "" && !have[n] {
				have[n] = true
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return have, names
}

// offered says what the server offers, names (sorted) at most ten of them.
func offered(names []string) string {
	if len(names) == 0 {
		return "the server offers none"
	}
	shown := names[:min(len(names), 10)]
	known := "it offers " + strings.Join(quoteAll(shown), ", ")
	if len(names) > len(shown) {
		known += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return known
}

// meant ends the error of the unknown name n: what the server offers
// (known), and the name of names a typo most likely meant.
func meant(known, n string, names []string) string {
	if h, ok := suggest.Closest(n, names); ok {
		return fmt.Sprintf("%s)\n  did you mean %q?", known, h)
	}
	return known + ")"
}

// checkToolArgs refuses a tool's Args that do not fit its input schema.
func checkToolArgs(opts Options, subjects []*subject) error {
	for _, s := range subjects {
		if args, ok := opts.Args[s.name]; ok && s.kind == "tool" {
			if err := toolargs.Check(s.name, s.schema, args); err != nil {
				return fmt.Errorf("%s %q: %v", opts.Name.Word(OptionArgs), s.name+"=…", err)
			}
		}
	}
	return nil
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

func (a *auditor) progress(format string, args ...any) {
	if a.opts.Progress != nil {
		a.opts.Progress(termsafe.Line(fmt.Sprintf(format, args...)))
	}
}

// list lists the tools, prompts and resources the server offers
// (catalog.List) and prepares a subject for each. A list that fails fails
// the audit, but for templates, which are optional: a server that cannot
// list them has none.
func (a *auditor) list(ctx context.Context, p *probe) ([]*subject, error) {
	l, err := catalog.List(ctx, p.s, catalog.Options{})
	if err != nil {
		return nil, err
	}
	a.rep.Declared = l.Declared
	if _, templates := l.ListErrors["resources/templates/list"]; l.Failed != nil && !(templates && len(l.ListErrors) == 1) {
		return nil, l.Failed
	}
	var out []*subject
	for _, t := range l.Tools {
		out = append(out, a.toolSubject(t))
	}
	for _, pr := range l.Prompts {
		out = append(out, a.promptSubject(pr))
	}
	for _, r := range l.Resources {
		out = append(out, &subject{kind: "resource", name: r.URI, report: &Subject{Kind: "resource", Name: r.URI}})
	}
	for _, rt := range l.Templates {
		out = append(out, a.templateSubject(rt))
	}
	return out, nil
}

// promptSubject prepares the subject of prompt pr, with its --args or
// arguments made up.
func (a *auditor) promptSubject(pr *mcp.Prompt) *subject {
	args := a.opts.Args[pr.Name]
	if args == nil {
		args = map[string]any{}
		for k, v := range schemaargs.PromptArgs(pr) {
			args[k] = v
		}
	}
	return &subject{kind: "prompt", name: pr.Name, prompt: pr, args: args,
		report: &Subject{Kind: "prompt", Name: pr.Name, ArgsMadeUp: a.opts.Args[pr.Name] == nil && len(pr.Arguments) > 0}}
}

// templateSubject prepares the subject of the resource template rt: the
// resource its --args (or "example" for each variable) name.
func (a *auditor) templateSubject(rt *mcp.ResourceTemplate) *subject {
	args := a.opts.Args[rt.URITemplate]
	if args == nil {
		args = map[string]any{}
		for _, v := range templateVars(rt.URITemplate) {
			args[v] = "example"
		}
	}
	return &subject{kind: "resource", name: expand(rt.URITemplate, args), template: rt.URITemplate, args: args,
		report: &Subject{Kind: "resource template", Name: rt.URITemplate, ArgsMadeUp: a.opts.Args[rt.URITemplate] == nil && len(templateVars(rt.URITemplate)) > 0}}
}

func (a *auditor) toolSubject(t *mcp.Tool) *subject {
	s := &subject{kind: "tool", name: t.Name, schema: t.InputSchema, report: &Subject{Kind: "tool", Name: t.Name}}
	s.readOnly = t.Annotations != nil && t.Annotations.ReadOnlyHint
	included := slices.Contains(a.opts.Include, t.Name) || slices.Contains(a.opts.Include, "*")
	// With ReadOnly, what is not marked read-only is skipped as that,
	// whether or not its annotations also make it destructive.
	if a.opts.ReadOnly && !s.readOnly && !included {
		s.report.Skipped = fmt.Sprintf("not marked read-only (readOnlyHint not true), and %s was given", a.opts.Name.Word(OptionReadOnly)) + skipHint(a.opts.Name.Word(OptionInclude), t.Name)
		return s
	}
	if why := destructive(t); why != "" && !included {
		s.report.Skipped = fmt.Sprintf("destructive (%s)", why) + skipHint(a.opts.Name.Word(OptionInclude), t.Name)
		return s
	}
	s.args = a.opts.Args[t.Name]
	if s.args == nil {
		s.args = schemaargs.Args(t.InputSchema)
		s.report.ArgsMadeUp = len(schemaargs.Map(schemaargs.Map(t.InputSchema)["properties"])) > 0
	}
	return s
}

// skipHint ends a skipped tool's Subject.Skipped: how to audit it
// (include names the option that allows it). The text report reads the
// reason back without it (Report.Fold).
func skipHint(include, name string) string {
	return fmt.Sprintf("; pass %s %s to audit it", include, name)
}

// destructive says why a tool counts as destructive by its annotations and
// the spec's defaults (readOnlyHint false, destructiveHint true), or "".
func destructive(t *mcp.Tool) string {
	an := t.Annotations
	switch {
	case an == nil:
		return "no annotations: destructiveHint defaults to true"
	case an.ReadOnlyHint:
		return ""
	case an.DestructiveHint == nil:
		return "destructiveHint absent, readOnlyHint not true"
	case *an.DestructiveHint:
		return "destructiveHint true"
	}
	return ""
}

// mrtrMethods are the only methods that may answer input_required.
var mrtrMethods = []string{"tools/call", "prompts/get", "resources/read"}

// placement checks rule 12: no input_required on any other method. It
// sends ping and completion/complete (when the server completes) and looks
// at the raw results of everything the first session received.
func (a *auditor) placement(ctx context.Context, p *probe, subjects []*subject) *Subject {
	srv := &Subject{Kind: "server"}
	res := &Result{Rule: RulePlacement}
	srv.Results = []*Result{res}
	if !a.modern {
		res.Status, res.Note = NA, fmt.Sprintf("protocol %s has no input_required results", a.protocol)
		return srv
	}
	_ = p.s.Ping(ctx)
	a.completeFirstPrompt(ctx, p, subjects)
	var checked []string
	for _, ex := range p.rec.all() {
		if slices.Contains(mrtrMethods, ex.Method) || !ex.Done || ex.Err != nil {
			continue
		}
		checked = append(checked, ex.Method)
		if inputRequired(ex.Result) {
			e := ex
			res.Evidence = append(res.Evidence, Evidence{
				What: fmt.Sprintf("%s answered with an input_required result", ex.Method),
				Sent: e.request(), Got: e.response()})
		}
	}
	switch {
	case len(res.Evidence) > 0:
		res.Status = Fail
	case len(checked) == 0:
		res.Status, res.Note = NA, "no other request was answered"
	default:
		res.Status, res.Note = Pass, "checked "+strings.Join(dedupe(checked), ", ")
	}
	return srv
}

// completeFirstPrompt asks for completions of the first argument of the
// first prompt that has one, when the server completes: one more method
// that must not answer input_required.
func (a *auditor) completeFirstPrompt(ctx context.Context, p *probe, subjects []*subject) {
	if p.s.ServerCapabilities().Completions == nil {
		return
	}
	for _, s := range subjects {
		if s.prompt == nil || len(s.prompt.Arguments) == 0 {
			continue
		}
		_, _ = p.s.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: s.prompt.Name},
			Argument: mcp.CompleteParamsArgument{Name: s.prompt.Arguments[0].Name, Value: ""},
		})
		return
	}
}

// inputRequired reports whether the raw result is an input_required
// result, or carries input requests.
func inputRequired(result json.RawMessage) bool {
	var r struct {
		ResultType    string          `json:"resultType"`
		InputRequests json.RawMessage `json:"inputRequests"`
	}
	_ = json.Unmarshal(result, &r)
	return r.ResultType == "input_required" || len(r.InputRequests) > 0 && string(r.InputRequests) != "null"
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// urlQuestions returns the URL questions of a -32042 error.
func urlQuestions(w *jsonrpc.Error) []*mcp.ElicitParams {
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if len(w.Data) == 0 || json.Unmarshal(w.Data, &data) != nil {
		return nil
	}
	for _, p := range data.Elicitations {
		if p != nil && p.Mode == "" {
			p.Mode = "url"
		}
	}
	return data.Elicitations
}

// credentials are what the audit sends to say who it is: the secrets of
// its headers and every access token its logins have used so far (a step-up
// or a refresh brings a new one). URLs must not carry them.
func (a *auditor) credentials() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, tok := range loginTokens(a.opts) {
		if !slices.Contains(a.secrets, tok) {
			a.secrets = append(a.secrets, tok)
		}
	}
	return slices.Clone(a.secrets)
}

// loginTokens are the current access tokens of the logins the audit uses:
// the target's and the second identity's.
func loginTokens(opts Options) []string {
	var out []string
	if h, _ := opts.Target.LoginHandler(); h != nil {
		if e := h.Entry(); e != nil {
			out = append(out, e.AccessToken)
		}
	}
	if opts.OtherLogin != nil && opts.Target.URL != "" {
		if h, _ := opts.OtherLogin.Handler(opts.Target.URL); h != nil {
			if e := h.Entry(); e != nil {
				out = append(out, e.AccessToken)
			}
		}
	}
	return out
}

// withHeader returns a copy of t that sends header name: value unless it
// already sends that header.
func withHeader(t *target.Target, name, value string) *target.Target {
	c := *t
	have, _ := target.ParseHeaders(t.Headers)
	if have.Get(name) == "" {
		c.Headers = append(append([]string{}, t.Headers...), name+": "+value)
	}
	return &c
}
