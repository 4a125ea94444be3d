//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 but kept working until at least 2027-07-28; the page answers it while servers ask.

package ui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/toolargs"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed assets
var assets embed.FS

// pages are the page's templates, each with the layout, parsed when
// first used: not at every start of mcp-tester, whatever command runs.
// Their "at" makes a path of the page its address (pagesAt).
var pages = sync.OnceValue(parsePages)

// pagesAt are the page's templates for a Server whose addresses start with
// prefix (the token): "at" puts it before each path.
func pagesAt(prefix string) map[string]*template.Template {
	out := map[string]*template.Template{}
	for name, t := range pages() {
		c := template.Must(t.Clone())
		out[name] = c.Funcs(template.FuncMap{"at": func(p string) string { return prefix + p }})
	}
	return out
}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"at":      func(p string) string { return p }, // see pagesAt
		"json":    showJSON,
		"compact": compactJSON,
		// t neutralises what a server sent as the terminal does (control,
		// bidi and format characters shown as escapes) before html/template
		// escapes it.
		"t":      termsafe.Block,
		"clock":  func(t time.Time) string { return t.Format("15:04:05.000") },
		"since":  func(a, b time.Time) string { return b.Sub(a).Round(time.Millisecond).String() },
		"field":  func(i int) string { return "f" + strconv.Itoa(i) },
		"has":    func(set []string, v string) bool { return contains(set, v) },
		"list":   func(v ...string) []string { return v },
		"deref":  func(b *bool) bool { return b != nil && *b },
		"inputs": inputs,
		"inc":    func(i int) int { return i + 1 },
		"partInputs": func(i int, pt *part) []fieldInput {
			return inputsAt(partPrefix(i), pt.Fields, pt.Values)
		},
	}
	for k, f := range taskFuncs() {
		funcs[k] = f
	}
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/task.html", "assets/part-*.html"))
	out := map[string]*template.Template{}
	for _, name := range []string{"index", "tool", "call", "log", "run"} {
		t := template.Must(layout.Clone())
		out[name] = template.Must(t.ParseFS(assets, "assets/"+name+".html"))
	}
	return out
}

func contains(set []string, v string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// showJSON is a value as indented JSON, cut to what the page shows.
func showJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return trim(string(b), maxBody)
}

// fieldInput is one field of a form with what it holds.
type fieldInput struct {
	ID string
	F  *interactive.Field
	V  interactive.Value
}

func inputs(fields []*interactive.Field, values []interactive.Value) []fieldInput {
	return inputsAt("f", fields, values)
}

// partPrefix is the prefix of the names of question i's fields in a form
// that answers several questions.
func partPrefix(i int) string { return "q" + strconv.Itoa(i) + "-f" }

// inputsAt is inputs with the fields named prefix and their index.
func inputsAt(prefix string, fields []*interactive.Field, values []interactive.Value) []fieldInput {
	out := make([]fieldInput, len(fields))
	for i, f := range fields {
		out[i] = fieldInput{ID: prefix + strconv.Itoa(i), F: f}
		if i < len(values) {
			out[i].V = values[i]
		}
	}
	return out
}

// compactJSON is a value as JSON on one line, cut to what the page shows.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return trim(string(b), maxBody)
}

// view is what every page gets.
type view struct {
	Title   string
	Note    string
	Conn    *connView
	Calls   []*call
	Call    *call
	Tool    *toolView
	Msgs    []message
	Dropped int
	Filter  *logFilter  // the message log's (traffic.go)
	Steps   []loginStep // the OAuth login's
	Files   []*savedFile
	Runs    []*run
	Run     *run
	Refresh bool
	Default Target
	Error   string
}

// connView is the open session as the page shows it.
type connView struct {
	Target       Target
	Name         string
	Version      string
	Title        string
	Protocol     string
	Era          string
	Instructions string
	Capabilities string
	Tools        []*mcp.Tool
	Prompts      []*mcp.Prompt
	Resources    []*mcp.Resource
	Templates    []*mcp.ResourceTemplate
	ListErrs     []string
	Recording    string
}

// toolView is the form of a tool, prompt or resource template.
type toolView struct {
	Kind     string
	Name     string
	Title    string
	Desc     string
	Schema   string
	Fields   []*interactive.Field
	Values   []interactive.Value
	Args     string
	Problems []string
	Prompt   *mcp.Prompt
	Template *mcp.ResourceTemplate
	Task     *taskChoice // running the call as a task, where it can
}

// savedFile is a file the person saved.
type savedFile struct {
	Kind string // "script" or "recording"
	Path string
	Text string
	// Warnings are what the script command warned of: what the script
	// does not replay as the session went (a call still waiting, a
	// question nobody answered).
	Warnings []string
}

// run is a command the page ran: a script's test, or a report.
type run struct {
	ID     int
	Args   []string
	Code   int
	Out    string
	ErrOut string
	HTML   string // the path of the report's HTML page, if any
	Done   bool
}

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		b, _ := assets.ReadFile("assets/style.css")
		w.Write(b)
	})
	mux.HandleFunc("POST /connect", s.postConnect)
	mux.HandleFunc("POST /disconnect", s.postDisconnect)
	mux.HandleFunc("GET /tool", s.toolPage)
	mux.HandleFunc("GET /prompt", s.promptPage)
	mux.HandleFunc("GET /template", s.templatePage)
	mux.HandleFunc("POST /call", s.postCall)
	mux.HandleFunc("GET /calls/{id}", s.callPage)
	mux.HandleFunc("POST /calls/{id}/answer", s.postAnswer)
	mux.HandleFunc("POST /calls/{id}/cancel", s.postCancel)
	s.trafficRoutes(mux)
	mux.HandleFunc("POST /save", s.postSave)
	mux.HandleFunc("POST /run", s.postRun)
	mux.HandleFunc("GET /runs/{id}", s.runPage)
	mux.HandleFunc("GET /runs/{id}/report", s.reportPage)
}

func (s *Server) render(w http.ResponseWriter, name string, v *view) {
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		http.Error(w, "mcp-tester ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(s.secrets().hide(buf.String())))
}

// base fills what every page shows; hold s.mu.
func (s *Server) base(title string) *view {
	v := &view{Title: title, Note: s.last, Files: append([]*savedFile(nil), s.files...)}
	// The page is rendered after the lock is released: it gets copies of the
	// calls and runs, whose fields a running call or run goes on changing.
	for _, c := range s.calls {
		x := *c
		x.TaskRun = c.TaskRun.copy()
		v.Calls = append(v.Calls, &x)
	}
	for _, ru := range s.runs {
		x := *ru
		v.Runs = append(v.Runs, &x)
	}
	s.last = "" // a note is shown once
	if c := s.conn; c != nil {
		v.Conn = viewConn(c)
		v.Default = c.target
		v.Steps = append(v.Steps, c.steps...)
	} else {
		v.Default.Roots = s.opts.Roots
	}
	return v
}

func viewConn(c *conn) *connView {
	v := &connView{Target: c.target, Protocol: c.sess.ProtocolVersion(), ListErrs: c.listErrs, Recording: c.recPath}
	v.showListing(c.Listing)
	v.Era = "2025-11-25 and older: the server asks with elicitation/create requests"
	if v.Protocol >= "2026-07-28" {
		v.Era = "2026-07-28: the server asks with input_required results, each answered by a new request"
	}
	if ir := c.sess.InitializeResult(); ir != nil {
		if ir.ServerInfo != nil {
			v.Name, v.Version, v.Title = trim(ir.ServerInfo.Name, maxLine), trim(ir.ServerInfo.Version, maxLine), trim(ir.ServerInfo.Title, maxLine)
		}
		v.Instructions = trim(ir.Instructions, maxBody)
	}
	v.Capabilities = showJSON(c.sess.ServerCapabilities())
	return v
}

// showListing sets what v shows of a listing: the listing is kept whole
// (calls need its schemas and names); the titles and descriptions shown
// are cut.
func (v *connView) showListing(l catalog.Listing) {
	for _, t := range l.Tools {
		x := *t
		x.Title, x.Description = trim(t.Title, maxLine), trim(t.Description, maxBody)
		v.Tools = append(v.Tools, &x)
	}
	for _, p := range l.Prompts {
		x := *p
		x.Title, x.Description = trim(p.Title, maxLine), trim(p.Description, maxBody)
		v.Prompts = append(v.Prompts, &x)
	}
	for _, r := range l.Resources {
		x := *r
		x.Name, x.Title, x.Description = trim(r.Name, maxLine), trim(r.Title, maxLine), trim(r.Description, maxBody)
		v.Resources = append(v.Resources, &x)
	}
	for _, r := range l.Templates {
		x := *r
		x.Title, x.Description = trim(r.Title, maxLine), trim(r.Description, maxBody)
		v.Templates = append(v.Templates, &x)
	}
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.base("mcp-tester ui")
	s.mu.Unlock()
	s.render(w, "index", v)
}

// noteAndBack shows a note at the top of the page and goes to it.
func (s *Server) noteAndBack(w http.ResponseWriter, r *http.Request, to, note string) {
	s.mu.Lock()
	s.last = note
	s.mu.Unlock()
	s.seeOther(w, r, to)
}

// seeOther sends the browser to the page's path to.
func (s *Server) seeOther(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, s.at(to), http.StatusSeeOther)
}

func (s *Server) postConnect(w http.ResponseWriter, r *http.Request) {
	t := Target{
		Command:  strings.TrimSpace(r.FormValue("command")),
		URL:      strings.TrimSpace(r.FormValue("url")),
		Protocol: strings.TrimSpace(r.FormValue("protocol")),
	}
	if (t.Command == "") == (t.URL == "") {
		s.noteAndBack(w, r, "/", "Give a command or a URL, not both.")
		return
	}
	t.Roots = []string{}
	for _, line := range strings.Split(r.FormValue("roots"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if _, err := answer.ParseRoot(line); err != nil {
			s.noteAndBack(w, r, "/", "Roots: "+err.Error())
			return
		}
		t.Roots = append(t.Roots, line)
	}
	if s.busy() {
		s.noteAndBack(w, r, "/", "A call is in progress: finish or cancel it first.")
		return
	}
	if err := s.Connect(r.Context(), t); err != nil {
		s.noteAndBack(w, r, "/", "Could not connect: "+trim(err.Error(), maxBody))
		return
	}
	s.noteAndBack(w, r, "/", "Connected to "+t.Describe()+".")
}

func (s *Server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current() != nil
}

func (s *Server) postDisconnect(w http.ResponseWriter, r *http.Request) {
	if s.busy() {
		s.noteAndBack(w, r, "/", "A call is in progress: finish or cancel it first.")
		return
	}
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	s.noteAndBack(w, r, "/", "Disconnected.")
}

// findTool is the tool named name; hold s.mu.
func (s *Server) findTool(name string) *mcp.Tool {
	if s.conn == nil {
		return nil
	}
	return first(s.conn.Tools, func(t *mcp.Tool) bool { return t.Name == name })
}

// first is the first item of list that match takes, or nil: where a server
// listed a name twice, every page shows the same one.
func first[T any](list []*T, match func(*T) bool) *T {
	for _, x := range list {
		if match(x) {
			return x
		}
	}
	return nil
}

// toolForm is the form of a tool's input schema, or nil when the schema is
// not one a form can show (then the page offers raw JSON only).
func toolForm(t *mcp.Tool) *formschema.Schema {
	if t == nil || t.InputSchema == nil {
		return nil
	}
	f, err := formschema.Parse(t.InputSchema)
	if err != nil {
		return nil
	}
	return f
}

func (s *Server) toolPage(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	t := s.findTool(name)
	v := s.base("Tool " + name)
	c := s.conn
	s.mu.Unlock()
	if t == nil {
		http.NotFound(w, r)
		return
	}
	v.Tool = toolViewOf(t)
	v.Tool.Task = taskChoiceOf(r.Context(), c, t.Name)
	s.render(w, "tool", v)
}

func toolViewOf(t *mcp.Tool) *toolView {
	tv := &toolView{Kind: "tool", Name: t.Name, Title: trim(t.Title, maxLine), Desc: trim(t.Description, maxBody), Schema: showJSON(t.InputSchema), Args: "{}"}
	if f := toolForm(t); f != nil {
		tv.Fields = interactive.Describe(f)
		for _, fd := range tv.Fields {
			tv.Values = append(tv.Values, fd.Start)
		}
	}
	return tv
}

func (s *Server) promptPage(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	v := s.base("Prompt " + name)
	var p *mcp.Prompt
	if s.conn != nil {
		p = first(s.conn.Prompts, func(x *mcp.Prompt) bool { return x.Name == name })
	}
	s.mu.Unlock()
	if p == nil {
		http.NotFound(w, r)
		return
	}
	v.Tool = &toolView{Kind: "prompt", Name: p.Name, Title: trim(p.Title, maxLine), Desc: trim(p.Description, maxBody), Prompt: p}
	s.render(w, "tool", v)
}

func (s *Server) templatePage(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("uri")
	s.mu.Lock()
	v := s.base("Resource template")
	var p *mcp.ResourceTemplate
	if s.conn != nil {
		p = first(s.conn.Templates, func(x *mcp.ResourceTemplate) bool { return x.URITemplate == name })
	}
	s.mu.Unlock()
	if p == nil {
		http.NotFound(w, r)
		return
	}
	v.Tool = &toolView{Kind: "template", Name: p.URITemplate, Title: trim(p.Title, maxLine), Desc: trim(p.Description, maxBody), Template: p, Args: p.URITemplate}
	s.render(w, "tool", v)
}

// readValues reads a form's fields as the person entered them.
func readValues(r *http.Request, fields []*interactive.Field) []interactive.Value {
	return readValuesAt(r, "f", fields)
}

// readValuesAt reads fields named prefix followed by their index.
func readValuesAt(r *http.Request, prefix string, fields []*interactive.Field) []interactive.Value {
	vals := make([]interactive.Value, len(fields))
	for i, f := range fields {
		name := prefix + strconv.Itoa(i)
		switch f.Widget {
		case interactive.YesNo:
			vals[i].On = r.PostFormValue(name) == "on"
		case interactive.SelectOne:
			vals[i].Choice = r.PostFormValue(name)
		case interactive.SelectMany:
			vals[i].Set = r.PostForm[name]
		default:
			vals[i].Text = r.PostFormValue(name)
		}
	}
	return vals
}

func (s *Server) postCall(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	kind, name := r.PostFormValue("kind"), r.PostFormValue("name")
	s.mu.Lock()
	c := s.conn
	t := s.findTool(name)
	prompt := s.promptToCall(kind, name)
	s.mu.Unlock()
	if c == nil {
		s.noteAndBack(w, r, "/", "Connect to a server first.")
		return
	}
	if s.busy() {
		s.noteAndBack(w, r, "/", "A call is in progress: finish or cancel it first.")
		return
	}
	var (
		args     map[string]any
		sargs    map[string]string
		problems []string
		tv       *toolView
	)
	switch kind {
	case "tool":
		if t == nil {
			http.NotFound(w, r)
			return
		}
		tv, args, problems = readToolArgs(r, t)
	case "prompt":
		if prompt == nil {
			http.NotFound(w, r)
			return
		}
		tv, sargs, problems = readPromptArgs(r, prompt)
	case "resource":
		if name == "" {
			problems = append(problems, "give the resource's URI")
		}
		tv = &toolView{Kind: "template", Name: name, Args: name}
	default:
		http.Error(w, "unknown kind", http.StatusBadRequest)
		return
	}
	mode := taskModeOf(r)
	if len(problems) > 0 {
		tv.Task = taskChoiceAgain(r.Context(), c, kind, name, mode)
		s.mu.Lock()
		v := s.base("Fix the form")
		s.mu.Unlock()
		tv.Problems = problems
		v.Tool = tv
		w.WriteHeader(http.StatusUnprocessableEntity)
		s.render(w, "tool", v)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cl := s.addCall(&call{Kind: kind, Name: name, Args: argsText(kind, args, sargs), cancel: cancel, TaskRun: newTaskRun(mode)})
	go s.runCall(ctx, c, cl, args, sargs)
	s.settle(r.Context(), cl)
	s.seeOther(w, r, fmt.Sprintf("/calls/%d", cl.ID))
}

// promptToCall is the prompt named name when kind is "prompt" and the
// server listed one (the first so named, the one its page shows); hold
// s.mu.
func (s *Server) promptToCall(kind, name string) *mcp.Prompt {
	if s.conn == nil || kind != "prompt" {
		return nil
	}
	return first(s.conn.Prompts, func(p *mcp.Prompt) bool { return p.Name == name })
}

// readToolArgs reads the arguments of a call of tool t, from the form's
// fields or as JSON, and checks them against the tool's input schema.
func readToolArgs(r *http.Request, t *mcp.Tool) (tv *toolView, args map[string]any, problems []string) {
	tv = toolViewOf(t)
	if r.PostFormValue("with") == "json" || tv.Fields == nil {
		tv.Args = r.PostFormValue("args")
		m, err := userjson.Parse("arguments", tv.Args, userjson.AsWritten)
		if err != nil {
			problems = append(problems, err.Error())
		}
		args = m
	} else {
		tv.Values = readValues(r, tv.Fields)
		args, problems = interactive.Collect(toolForm(t), tv.Fields, tv.Values)
	}
	if len(problems) == 0 {
		if err := toolargs.Check(t.Name, t.InputSchema, args); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return tv, args, problems
}

// readPromptArgs reads the arguments of a request for prompt, each
// required one given.
func readPromptArgs(r *http.Request, prompt *mcp.Prompt) (tv *toolView, args map[string]string, problems []string) {
	tv = &toolView{Kind: "prompt", Name: prompt.Name, Title: trim(prompt.Title, maxLine), Desc: trim(prompt.Description, maxBody), Prompt: prompt}
	args = map[string]string{}
	for i, a := range prompt.Arguments {
		v := r.PostFormValue("f" + strconv.Itoa(i))
		if v == "" && a.Required {
			problems = append(problems, fmt.Sprintf("%s is required", a.Name))
		}
		if v != "" {
			args[a.Name] = v
		}
	}
	return tv, args, problems
}

// argsText is the arguments of a call of kind as its page shows them: a
// tool's or a prompt's as JSON, none for a resource.
func argsText(kind string, args map[string]any, sargs map[string]string) string {
	if kind == "resource" {
		return ""
	}
	shown := args
	if kind == "prompt" {
		shown = map[string]any{}
		for k, v := range sargs {
			shown[k] = v
		}
	}
	b, _ := json.Marshal(shown)
	return string(b)
}

// addCall numbers cl, starts its clock and adds it to the calls, the
// details of the oldest forgotten past maxDetailed.
func (s *Server) addCall(cl *call) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	cl.ID, cl.Started = len(s.calls)+1, s.opts.Now()
	s.calls = append(s.calls, cl)
	if n := len(s.calls) - maxDetailed; n > 0 {
		s.calls[n-1].forget()
	}
	s.last = ""
	s.notify()
	return cl
}

// settle waits a little for the call to ask or end, so that the page the
// person is sent to shows it.
func (s *Server) settle(ctx context.Context, cl *call) {
	s.waitChange(ctx, 10*time.Second, func() bool { return cl.Done || cl.Pending != nil })
}

// runCall makes the call through the session and keeps what came back.
func (s *Server) runCall(ctx context.Context, c *conn, cl *call, args map[string]any, sargs map[string]string) {
	defer cl.cancel()
	var out outcome
	switch cl.Kind {
	case "tool":
		out = callTool(ctx, c, cl, args)
		s.afterCancel(c, cl)
	case "prompt":
		out = getPrompt(ctx, c, cl, sargs)
	case "resource":
		out = readResource(ctx, c, cl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cl.Done, cl.Ended, cl.Rounds, cl.IsError = true, s.opts.Now(), out.rounds, out.isErr
	for _, t := range out.texts {
		cl.Texts = append(cl.Texts, trim(t, maxBody))
	}
	if out.res != nil {
		cl.Result = showJSON(out.res)
	}
	if out.err != nil {
		cl.Err = trim(out.err.Error(), maxBody)
		if errors.Is(out.err, context.Canceled) {
			cl.Err = "cancelled: " + cl.Err
		}
	}
	s.notify()
}

// outcome is what came back from a call: the result, its texts, the
// rounds it took, and its error.
type outcome struct {
	res    any
	texts  []string
	isErr  bool // a tool's error result
	rounds int
	err    error
}

// callTool calls the tool of cl with args.
func callTool(ctx context.Context, c *conn, cl *call, args map[string]any) outcome {
	r, a, err := c.sess.CallToolWith(ctx, cl.Name, args, nil, session.CallOptions{Task: cl.taskMode()})
	out := outcome{err: err, rounds: roundsOf(a)}
	if r != nil {
		out.res, out.isErr = r, r.IsError
		out.texts = contentTexts(r.Content)
	}
	return out
}

// getPrompt gets the prompt of cl with args.
func getPrompt(ctx context.Context, c *conn, cl *call, args map[string]string) outcome {
	r, a, err := c.sess.GetPrompt(ctx, cl.Name, args, nil)
	out := outcome{err: err, rounds: roundsOf(a)}
	if r != nil {
		out.res = r
		for _, m := range r.Messages {
			out.texts = append(out.texts, contentTexts([]mcp.Content{m.Content})...)
		}
	}
	return out
}

// readResource reads the resource of cl.
func readResource(ctx context.Context, c *conn, cl *call) outcome {
	r, a, err := c.sess.ReadResource(ctx, cl.Name, nil)
	out := outcome{err: err, rounds: roundsOf(a)}
	if r != nil {
		out.res = r
		for _, rc := range r.Contents {
			if rc.Text != "" {
				out.texts = append(out.texts, rc.Text)
			}
		}
	}
	return out
}

// roundsOf is the rounds a call took, 0 when it did not start.
func roundsOf(a *session.Call) int {
	if a == nil {
		return 0
	}
	return a.Rounds
}

func contentTexts(cs []mcp.Content) []string {
	var out []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

// findCall is the call of the request's {id}; hold s.mu.
func (s *Server) findCall(r *http.Request) *call {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > len(s.calls) {
		return nil
	}
	return s.calls[id-1]
}

func (s *Server) callPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cl := s.findCall(r)
	if cl == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	v := s.base(fmt.Sprintf("Call %d: %s", cl.ID, cl.Name))
	c := *cl
	c.Questions = append(c.Questions[:0:0], cl.Questions...)
	c.TaskRun = cl.TaskRun.copy()
	c.States = nil
	for _, st := range cl.States {
		x := *st
		c.States = append(c.States, &x)
	}
	if cl.Pending != nil {
		p := *cl.Pending
		p.Parts = nil
		for _, pt := range cl.Pending.Parts {
			x := *pt
			p.Parts = append(p.Parts, &x)
		}
		c.Pending = &p
	}
	v.Call = &c
	v.Refresh = !c.Done && c.Pending == nil
	s.mu.Unlock()
	s.render(w, "call", v)
}

func (s *Server) postAnswer(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	cl := s.findCall(r)
	if cl == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	p := cl.Pending
	to := fmt.Sprintf("/calls/%d", cl.ID)
	if p == nil || strconv.Itoa(p.Seq) != r.PostFormValue("question") {
		s.mu.Unlock()
		s.seeOther(w, r, to)
		return
	}
	action := r.PostFormValue("action")
	var reply any
	switch {
	case len(p.Parts) > 0:
		res, ok := s.answerParts(r, cl, p)
		if !ok {
			s.mu.Unlock()
			s.seeOther(w, r, to)
			return
		}
		reply = res
	case p.SQ != nil:
		reply = sampleReply(r, action)
	case action == "decline" || action == "cancel":
		reply = &mcp.ElicitResult{Action: action}
	case action == "open" || action == "accept":
		res, ok := s.acceptAnswer(r, p, action)
		if !ok {
			s.mu.Unlock()
			s.seeOther(w, r, to)
			return
		}
		reply = res
	default:
		s.mu.Unlock()
		http.Error(w, "unknown action", http.StatusBadRequest)
		return
	}
	cl.Pending = nil
	s.mu.Unlock()
	if e, ok := reply.(error); ok {
		// A sampling request the person refused ends with an error.
		p.reply <- &refusal{err: e}
	} else {
		p.reply <- reply
	}
	s.waitChange(r.Context(), 10*time.Second, func() bool { return cl.Done || (cl.Pending != nil && cl.Pending != p) })
	s.seeOther(w, r, to)
}

// sampleReply is the person's reply to a sampling request: the model reply
// they wrote, or an error when they declined to write one.
func sampleReply(r *http.Request, action string) any {
	if action != "accept" {
		return errors.New("the person declined to write a reply")
	}
	model := r.PostFormValue("model")
	if model == "" {
		model = answer.DefaultModel
	}
	return &mcp.CreateMessageWithToolsResult{Model: model, Role: "assistant", StopReason: "endTurn",
		Content: []mcp.Content{&mcp.TextContent{Text: r.PostFormValue("reply")}}}
}

// acceptAnswer reads the answer that accepts question p (action "accept",
// or "open" to open its link too); hold s.mu. When the form's values are
// refused, p keeps them with the problems and ok is false.
func (s *Server) acceptAnswer(r *http.Request, p *pending, action string) (res *mcp.ElicitResult, ok bool) {
	res = &mcp.ElicitResult{Action: "accept"}
	if p.Q.Form != nil {
		vals := readValues(r, p.Fields)
		content, problems := collectAnswer(p.Q, p.Fields, vals)
		if len(problems) > 0 {
			p.Values, p.Problems = withoutSecrets(p.Fields, vals), problems
			return nil, false
		}
		res.Content = content
	}
	if action == "open" && p.Q.Mode() == "url" && p.Link.Openable && s.opts.Open != nil {
		if err := s.opts.Open(r.Context(), p.Q.Params.URL); err != nil {
			s.last = "Could not open the browser: " + err.Error()
		}
	}
	return res, true
}

// collectAnswer is the content of a form answer to q from the values the
// person entered in its fields, or why it is refused.
func collectAnswer(q *answer.Question, fields []*interactive.Field, vals []interactive.Value) (map[string]any, []string) {
	content, problems := interactive.Collect(q.Form, fields, vals)
	if len(problems) == 0 {
		if _, err := answer.Finish(q, &mcp.ElicitResult{Action: "accept", Content: content}, true); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return content, problems
}

// answerParts reads the answers to every question of a round that asks
// several; hold s.mu. The first answer is returned, the others wait in
// cl.prepared for the session to ask them. When one is refused, every
// part keeps what the person entered and nothing is sent.
func (s *Server) answerParts(r *http.Request, cl *call, p *pending) (*mcp.ElicitResult, bool) {
	results := make([]*mcp.ElicitResult, len(p.Parts))
	var open []string
	refused := false
	for i, pt := range p.Parts {
		pt.Problems = nil
		action := r.PostFormValue("action-" + strconv.Itoa(i))
		switch action {
		case "decline", "cancel":
			pt.Action = action
			results[i] = &mcp.ElicitResult{Action: action}
			continue
		case "open":
			if pt.Q.Mode() == "url" && pt.Link.Openable {
				open = append(open, pt.Q.Params.URL)
			}
		case "accept":
		default:
			pt.Action, pt.Problems, refused = "accept", []string{"choose what to answer"}, true
			continue
		}
		pt.Action = action
		res, ok := acceptPart(r, i, pt)
		if !ok {
			refused = true
			continue
		}
		results[i] = res
	}
	if refused {
		return nil, false
	}
	cl.prepared = map[string]*mcp.ElicitResult{}
	for i, pt := range p.Parts[1:] {
		cl.prepared[pt.Q.Key] = results[i+1]
	}
	s.openAll(r.Context(), open)
	return results[0], true
}

// acceptPart reads the answer that accepts part i of a round; pt keeps the
// values entered, and why they are refused when ok is false.
func acceptPart(r *http.Request, i int, pt *part) (res *mcp.ElicitResult, ok bool) {
	res = &mcp.ElicitResult{Action: "accept"}
	if pt.Q.Form == nil {
		return res, true
	}
	vals := readValuesAt(r, partPrefix(i), pt.Fields)
	content, problems := collectAnswer(pt.Q, pt.Fields, vals)
	pt.Values = withoutSecrets(pt.Fields, vals)
	if len(problems) > 0 {
		pt.Problems = problems
		return nil, false
	}
	res.Content = content
	return res, true
}

// openAll opens the links in the person's browser, when the server may;
// hold s.mu.
func (s *Server) openAll(ctx context.Context, links []string) {
	if s.opts.Open == nil {
		return
	}
	for _, u := range links {
		if err := s.opts.Open(ctx, u); err != nil {
			s.last = "Could not open the browser: " + err.Error()
		}
	}
}

// refusal is a sampling request the person would not answer.
type refusal struct{ err error }

func (s *Server) postCancel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cl := s.findCall(r)
	s.mu.Unlock()
	if cl == nil {
		http.NotFound(w, r)
		return
	}
	// A task is cancelled with tasks/cancel, and the page follows it to
	// its end; any other call stops waiting.
	if !s.cancelTask(r.Context(), cl) {
		cl.cancel()
	}
	s.waitChange(r.Context(), 5*time.Second, func() bool { return cl.Done })
	s.seeOther(w, r, fmt.Sprintf("/calls/%d", cl.ID))
}

// checkSavePath refuses to replace a file that exists unless the person
// asked to: a name typed by mistake (or sent by anything that got hold of
// the page) must not replace a file they keep, a profile or a script of
// their own. Links are refused when the file is written (outfile).
func checkSavePath(path string, replace bool) error {
	if _, err := os.Lstat(path); err == nil && !replace {
		return fmt.Errorf("%s exists already: tick the box “Replace an existing … file” under it to replace it", path)
	}
	return nil
}

// path is a saved file's path: relative ones in the work folder.
func (s *Server) path(p string) string {
	if filepath.IsAbs(p) || s.opts.WorkDir == "" {
		return p
	}
	return filepath.Join(s.opts.WorkDir, p)
}

func (s *Server) postSave(w http.ResponseWriter, r *http.Request) {
	kind, name := r.PostFormValue("kind"), strings.TrimSpace(r.PostFormValue("path"))
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		s.noteAndBack(w, r, "/", "Connect to a server first.")
		return
	}
	if name == "" {
		s.noteAndBack(w, r, "/", "Name the file to save.")
		return
	}
	path := s.path(name)
	if err := checkSavePath(path, r.PostFormValue("replace") == "on"); err != nil {
		s.noteAndBack(w, r, "/", err.Error())
		return
	}
	f := &savedFile{Kind: kind, Path: path}
	switch kind {
	case "recording":
		b, err := os.ReadFile(c.recPath)
		if err == nil {
			err = outfile.Write(path, b, 0o600)
		}
		if err != nil {
			s.noteAndBack(w, r, "/", "Could not save the recording: "+err.Error())
			return
		}
		f.Text = trim(string(b), maxBody)
	case "script":
		var out, errOut bytes.Buffer
		code := s.opts.Run(r.Context(), []string{"script", c.recPath, "-o", path}, &out, &errOut)
		if code != 0 {
			s.noteAndBack(w, r, "/", "Could not write the script: "+errOut.String())
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			s.noteAndBack(w, r, "/", "Could not read the script back: "+err.Error())
			return
		}
		f.Text = trim(string(b), maxBody)
		f.Warnings = scriptWarnings(errOut.String())
	default:
		http.Error(w, "unknown kind", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.files = keepNewest(append(s.files, f), maxDetailed)
	s.mu.Unlock()
	note := "Saved " + path + "."
	if n := len(f.Warnings); n > 0 {
		note = fmt.Sprintf("Saved %s, with %d warning%s: the script does not replay everything as the session went (see under “Saved script”).", path, n, map[bool]string{true: "s"}[n != 1])
	}
	s.noteAndBack(w, r, "/#saved", note)
}

// maxWarnings bounds the warnings of a saved script the page keeps, and
// maxWarning each one's bytes.
const (
	maxWarnings = 50
	maxWarning  = 4 << 10
)

// scriptWarnings are the warnings the script command wrote on stderr
// (each "warning: FILE:LINE: …"), at most maxWarnings, the last saying
// how many more there were.
func scriptWarnings(errOut string) []string {
	var out []string
	more := 0
	for _, l := range strings.Split(errOut, "\n") {
		l, ok := strings.CutPrefix(strings.TrimSpace(l), "warning: ")
		switch {
		case !ok:
		case len(out) < maxWarnings:
			out = append(out, trim(l, maxWarning))
		default:
			more++
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	return out
}

// targetArgs are the command line flags that reach the session's server.
func targetArgs(t Target) []string {
	var out []string
	if t.Command != "" {
		out = append(out, "-c", t.Command)
	} else {
		out = append(out, "-u", t.URL)
	}
	if t.Protocol != "" {
		out = append(out, "--protocol", t.Protocol)
	}
	return out
}

// targetArgs are the flags of a command run from the page that reach t.
func (s *Server) targetArgs(t Target) []string {
	if s.opts.TargetArgs != nil {
		return s.opts.TargetArgs(t)
	}
	return targetArgs(t)
}

// reports are the commands whose HTML report the page shows.
var reports = map[string]bool{"audit": true, "inspect": true, "scan": true, "grade": true}

func (s *Server) postRun(w http.ResponseWriter, r *http.Request) {
	what := r.PostFormValue("what")
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		s.noteAndBack(w, r, "/", "Connect to a server first.")
		return
	}
	s.mu.Lock()
	ru := &run{ID: s.runSeq + 1}
	s.mu.Unlock()
	switch {
	case what == "test":
		p := strings.TrimSpace(r.PostFormValue("path"))
		if p == "" {
			s.noteAndBack(w, r, "/", "Name the script to run.")
			return
		}
		ru.Args = append([]string{"test", "-s", s.path(p)}, s.targetArgs(c.target)...)
	case reports[what]:
		ru.HTML = filepath.Join(s.opts.Dir, fmt.Sprintf("report-%d.html", ru.ID))
		ru.Args = append([]string{what}, s.targetArgs(c.target)...)
		ru.Args = append(ru.Args, "--html", ru.HTML)
	default:
		http.Error(w, "unknown command", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if running := s.running(); running >= maxRunning {
		s.mu.Unlock()
		s.noteAndBack(w, r, "/", fmt.Sprintf("%d commands are running already: wait for one to end.", running))
		return
	}
	s.runSeq++
	ru.ID = s.runSeq
	s.runs = keepNewest(append(s.runs, ru), maxDetailed)
	s.mu.Unlock()
	go func() {
		var out, errOut bytes.Buffer
		code := s.opts.Run(context.Background(), ru.Args, &out, &errOut)
		s.mu.Lock()
		ru.Code, ru.Out, ru.ErrOut, ru.Done = code, trim(out.String(), maxBody), trim(errOut.String(), maxBody), true
		s.notify()
		s.mu.Unlock()
	}()
	s.waitChange(r.Context(), 20*time.Second, func() bool { return ru.Done })
	s.seeOther(w, r, fmt.Sprintf("/runs/%d", ru.ID))
}

func (s *Server) findRun(r *http.Request) *run {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return nil
	}
	for _, ru := range s.runs {
		if ru.ID == id {
			return ru
		}
	}
	return nil
}

// maxRunning bounds the commands the page runs at once.
const maxRunning = 4

// running counts the commands that have not ended.
func (s *Server) running() int {
	n := 0
	for _, ru := range s.runs {
		if !ru.Done {
			n++
		}
	}
	return n
}

// keepNewest keeps the last n of list: the page shows what was done
// lately, and a long session does not grow it without bound.
func keepNewest[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	return append(list[:0:0], list[len(list)-n:]...)
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ru := s.findRun(r)
	if ru == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	v := s.base("Run " + strings.Join(ru.Args[:1], " "))
	x := *ru
	v.Run = &x
	v.Refresh = !x.Done
	s.mu.Unlock()
	s.render(w, "run", v)
}

// reportCSP lets a report keep its own inline style and nothing else: no
// script runs in it, whatever it holds.
const reportCSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ru := s.findRun(r)
	s.mu.Unlock()
	if ru == nil || ru.HTML == "" {
		http.NotFound(w, r)
		return
	}
	b, err := os.ReadFile(ru.HTML)
	if err != nil {
		http.Error(w, "the report was not written", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(s.secrets().hide(string(b))))
}
