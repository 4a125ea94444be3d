// Package fromrecording writes a conversation (internal/recording/conversation) as a
// .mcp script that replays the client's side by meaning, not bytes: each
// call with its arguments, each question answered by its key with the
// answer the person gave, no requestState (the tester gets a fresh one
// each round), and checks of the questions and of the results in which
// the values that change from run to run are placeholders
// (internal/script/expect). What the script cannot do as the client did is a
// comment in the script and a Warning.
package fromrecording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/cmdname"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/askback/askback/internal/script/syntax"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/optname"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure Write.
type Options struct {
	// Source names the recording in the script's first line.
	Source string
	// Output is the script's file name, for the line that says how to run
	// it; empty: SCRIPT.mcp.
	Output string
	// Match says how strictly results and questions are checked.
	Match expect.Mode
	// Ignore names parts of results the checks say nothing of.
	Ignore []expect.Path
	// Counts, when set, is filled in with how many calls the script
	// replays and how many it does not.
	Counts *Counts
	// Name names one of the caller's options in its terms, for the errors
	// that point at it (a command line's flag); nil, or "", names it as
	// the Go API does ([Option.String]).
	Name optname.Namer[Option]
}

// Option is one of the caller's choices an error of Write points at as
// the way on; [Options.Name] words it for the caller.
type Option int

// The options an error of Write points at.
const (
	// OptionLists takes a recording's list requests as calls
	// ([conversation.Options.Lists], given when the conversation is read).
	OptionLists Option = iota + 1
)

// String names o in the Go API's terms.
func (o Option) String() string {
	switch o {
	case OptionLists:
		return "conversation.Options.Lists"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// Counts says what became of the recording's calls in a script.
type Counts struct {
	// Replayed is the number of calls the script makes.
	Replayed int
	// Commented is the number of calls written only as comments, not
	// replayed: nothing of them can be checked (a call without a result
	// and without questions, as at the end of a recording cut short, or a
	// call the client cancelled).
	Commented int
	// NoResult and Cancelled say why Commented calls are: they got no
	// result in the recording, or the client cancelled them.
	NoResult, Cancelled int
	// LeftOut is the number of calls a script cannot write.
	LeftOut int
}

// WhyCommented says why the calls written only as comments are (they got
// no result in the recording, the client cancelled them): "it got no
// result in the recording", "2 got no result in the recording, 1 was
// cancelled by the client"; empty when there are none.
func (c Counts) WhyCommented() string {
	if c.Commented == 1 {
		if c.Cancelled == 1 {
			return "the client cancelled it"
		}
		return "it got no result in the recording"
	}
	return strings.Join(c.whyNot(false), ", ")
}

// whyNot says in parts what became of the calls not replayed; with
// leftOut, of those left out too.
func (c Counts) whyNot(leftOut bool) []string {
	var out []string
	if c.NoResult > 0 {
		out = append(out, fmt.Sprintf("%d got no result in the recording", c.NoResult))
	}
	switch {
	case c.Cancelled == 1:
		out = append(out, "1 was cancelled by the client")
	case c.Cancelled > 1:
		out = append(out, fmt.Sprintf("%d were cancelled by the client", c.Cancelled))
	}
	if leftOut && c.LeftOut > 0 {
		out = append(out, fmt.Sprintf("%d cannot be written in a script", c.LeftOut))
	}
	return out
}

// nothingReplayed is the error of a script that would replay no call: it
// says what became of the calls the recording holds.
func (c Counts) nothingReplayed() error {
	var why string
	switch {
	case c.Commented+c.LeftOut != 1:
		why = fmt.Sprintf("of its %d calls, %s (the warnings say which)", c.Commented+c.LeftOut, strings.Join(c.whyNot(true), ", "))
	case c.Cancelled == 1:
		why = "its one call was cancelled by the client"
	case c.NoResult == 1:
		why = "its one call got no result in the recording"
	default:
		why = "its one call cannot be written in a script"
	}
	return fmt.Errorf("%w: %s, so a script of it would replay nothing; no script was written", ErrNothing, why)
}

// nothingReplayed is the error of a script that would replay no call, and
// the warnings that go with it. What became of a recording's one call is
// said once: its note is the error's reason, not a warning too.
func (w *writer) nothingReplayed() ([]Warning, error) {
	if len(w.conv.Calls) != 1 || w.counts.Commented != 1 || len(w.notes[w.conv.Calls[0]]) != 1 {
		return w.warnings, w.counts.nothingReplayed()
	}
	n := w.notes[w.conv.Calls[0]][0]
	warnings := slices.DeleteFunc(slices.Clone(w.warnings), func(x Warning) bool { return x.Line == n.Line && x.Text == n.Text })
	return warnings, fmt.Errorf("%w: at line %d, %s; no script was written", ErrNothing, n.Line, n.Text)
}

// Warning is something of the recording the script does not do as the
// client did; it is also a comment in the script.
type Warning struct {
	Line int // the recording's line
	Text string
}

func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Text) }

// ErrNothing is returned for a conversation without a call to replay.
var ErrNothing = errors.New("the recording holds no call a script can replay")

// heredocAt is the length of compact JSON beyond which a check writes it
// indented, in a here-document.
const heredocAt = 500

// Write writes conv as a script. The warnings are the conversation's
// notes and what the script leaves out, in the order of the recording.
func Write(conv *conversation.Conversation, opts Options) ([]byte, []Warning, error) {
	if len(conv.Calls) == 0 {
		if conv.Lists > 0 {
			return nil, nil, fmt.Errorf("%w: it holds %d list request(s), which %s makes calls of", ErrNothing, conv.Lists, opts.Name.Word(OptionLists))
		}
		return nil, nil, ErrNothing
	}
	w := &writer{opts: opts, conv: conv, notes: notesByCall(conv.Notes)}
	w.header()
	for _, n := range conv.Notes {
		if n.Call == nil {
			w.warn(n.Line, "%s", n.Text)
			w.comment("line %d of the recording: %s", n.Line, n.Text)
		}
	}
	rootsAt := w.buf.Len()
	for _, q := range conv.Outside {
		w.rootsAnswer(q)
	}
	for _, c := range conv.Calls {
		w.buf.WriteString("\n")
		w.call(c)
	}
	if w.roots != "" {
		w.insertRoots(rootsAt)
	}
	if opts.Counts != nil {
		*opts.Counts = w.counts
	}
	if w.counts.Replayed == 0 {
		// A recording cut short before its one call was answered: a
		// script of comments would pass without doing anything.
		warnings, err := w.nothingReplayed()
		return nil, warnings, err
	}
	if n := w.buf.Len(); n > script.MaxFileSize {
		return nil, w.warnings, fmt.Errorf("the script would be %d bytes, more than the %d a script may have: record fewer or smaller calls", n, script.MaxFileSize)
	}
	return w.buf.Bytes(), w.warnings, nil
}

// notesByCall are the notes of each call.
func notesByCall(notes []conversation.Note) map[*conversation.Call][]conversation.Note {
	out := map[*conversation.Call][]conversation.Note{}
	for _, n := range notes {
		if n.Call != nil {
			out[n.Call] = append(out[n.Call], n)
		}
	}
	return out
}

// insertRoots writes the roots line at offset at of the script, before
// the calls: the roots are known only once the calls are read.
func (w *writer) insertRoots(at int) {
	text := w.buf.Bytes()
	var out bytes.Buffer
	out.Write(text[:at])
	out.WriteString("\n" + w.roots + "\n")
	out.Write(text[at:])
	w.buf = out
}

// parses reports whether text, one command (a here-document with its
// body), is one the script language reads back: a value too long for a
// line or a here-document is not.
func parses(text string) bool {
	_, err := script.ParseFile("check.mcp", []byte(text))
	return err == nil
}

type writer struct {
	opts     Options
	conv     *conversation.Conversation
	buf      bytes.Buffer
	warnings []Warning
	notes    map[*conversation.Call][]conversation.Note
	roots    string // the roots line, from the first roots/list answer
	// hiddenArgs says which arguments of the last command written are
	// hidden, for a comment before it.
	hiddenArgs string
	rootsRaw   string
	counts     Counts
}

func (w *writer) line(format string, args ...any) {
	fmt.Fprintf(&w.buf, format+"\n", args...)
}

// comment writes text as comment lines.
func (w *writer) comment(format string, args ...any) {
	for _, l := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		w.buf.WriteString(syntax.Comment(l) + "\n")
	}
}

func (w *writer) warn(line int, format string, args ...any) {
	w.warnings = append(w.warnings, Warning{Line: line, Text: fmt.Sprintf(format, args...)})
}

func (w *writer) header() {
	h := w.conv.Header
	where := "over " + h.Transport
	if h.Transport == recording.TransportStdio {
		where = "over stdio"
	}
	proto := strings.Join(w.conv.Protocols, ", ")
	if proto == "" {
		proto = "unknown"
	}
	source := w.opts.Source
	if source == "" {
		source = "a recording"
	}
	w.comment("Replays the client's side of %s: %s %s, protocol %s.", filepath.Base(source), h.Server, where, proto)
	out := w.opts.Output
	if out == "" {
		out = "SCRIPT.mcp"
	}
	run := "mcp-tester test -s " + shellWord(out)
	switch h.Transport {
	case recording.TransportStdio:
		run += " -c " + shellWord(h.Server)
	case recording.TransportSSE:
		run += " -u " + shellWord(h.Server) + " --transport sse"
	default:
		run += " -u " + shellWord(h.Server)
	}
	if len(w.conv.Protocols) == 1 && w.conv.Protocols[0] != newest() {
		run += " --protocol " + w.conv.Protocols[0]
	}
	w.comment("Run it: %s", run)
	how := "exactly, the values that change from run to run written as placeholders ({{id}}, {{timestamp}}, …)"
	if w.opts.Match == expect.Shape {
		how = "by shape: members, lengths and the kind of each value"
	}
	w.comment("Results and questions are checked %s; see docs/scripts.md.", how)
}

func newest() string {
	v := mcp.SupportedProtocolVersions()
	return v[0]
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// call writes one call: its notes, answers, the command, and its checks.
func (w *writer) call(c *conversation.Call) {
	cmd, ok := w.callCommand(c)
	if !ok {
		return
	}
	switch {
	case c.Method == conversation.MethodSetLevel:
		w.line("%s", cmd)
		w.counts.Replayed++
		return
	case c.Cancelled && c.Task == nil, !c.Ended && len(c.Questions) == 0 && c.Task == nil:
		// Nothing of it can be checked, and it might not end: it is
		// written, commented out.
		w.comment("not replayed: %s", cmd)
		w.counts.Commented++
		if c.Cancelled {
			w.counts.Cancelled++
		} else {
			w.counts.NoResult++
		}
		return
	}
	w.counts.Replayed++
	task := c.Task
	if task != nil && task.CancelledByClient {
		w.cancelledTask(c, cmd)
		return
	}
	if task != nil && !c.Ended {
		// The task was left running: the script starts it and leaves it.
		w.line("%s", strings.Replace(cmd, cmdname.CallTool+" ", cmdname.StartTool+" ", 1))
		return
	}
	given := w.answers(c)
	if given.failed {
		// The client answered with an error: the script cannot, so what
		// came of it is not checked.
		w.line("%s", cmd)
		w.questionChecks(c)
		if c.Ended {
			w.comment("the result came of the client's error answer; a script does not check it")
		}
		return
	}
	verb := cmd
	if c.Err != nil || (task != nil && c.Result == nil) {
		verb = cmdname.ExpectError + " " + cmd
	}
	w.line("%s", verb)
	w.questionChecks(c)
	if task != nil {
		w.taskStatus(c)
	}
	if c.Ended {
		w.writeResultChecks(c, given.outOfBand)
	}
}

// callCommand writes the notes of c and returns the command that sends
// it; ok is false when there is none a script reads back (said in a
// warning and a comment).
func (w *writer) callCommand(c *conversation.Call) (cmd string, ok bool) {
	for _, n := range w.notes[c] {
		w.warn(n.Line, "%s", n.Text)
		w.comment("line %d of the recording: %s", n.Line, n.Text)
	}
	w.hiddenArgs = ""
	cmd, err := w.command(c)
	if err == nil && !parses(cmd) {
		err = fmt.Errorf("the command (%d bytes) cannot be written as a script line that reads back", len(cmd))
	}
	if err != nil {
		w.warn(c.Line, "%s: left out: %v", describe(c), err)
		w.comment("line %d of the recording: %s: left out: %v", c.Line, describe(c), err)
		w.counts.LeftOut++
		return "", false
	}
	if w.hiddenArgs != "" {
		w.comment("%s", w.hiddenArgs)
	}
	return cmd, true
}

// cancelledTask writes a call whose task the client cancelled: the script
// starts the task, cancels it and checks that it was.
func (w *writer) cancelledTask(c *conversation.Call, cmd string) {
	task := c.Task
	if task.AnsweredBeforeCancel > 0 {
		w.warn(c.Line, "the client answered %d question(s) of task %s before it cancelled it: the script starts the task and cancels it, without the answers", task.AnsweredBeforeCancel, task.ID)
		w.comment("the client answered before it cancelled the task; the script cancels it without the answers")
	}
	w.line("%s", strings.Replace(cmd, cmdname.CallTool+" ", cmdname.StartTool+" ", 1))
	w.line("%s", cmdname.CancelTask)
	w.line("%s", cmdname.GetTask)
	w.line("%s cancelled", cmdname.AssertTaskStatus)
}

// taskStatus writes the check of the last status of c's task, when it is
// one a script can check.
func (w *writer) taskStatus(c *conversation.Call) {
	task := c.Task
	switch task.Status {
	case "working", "input_required", "completed", "failed", "cancelled":
		w.line("%s %s", cmdname.AssertTaskStatus, task.Status)
	default:
		w.warn(c.Line, "task %s ended with the status %q, which is none a script can check: the script checks no status", oneLine(task.ID), oneLine(task.Status))
		w.comment("the task's last status is none a script can check: %q", task.Status)
	}
}

// writeResultChecks writes the checks of c's result; as comments when the
// result depended on what the person did in the browser (outOfBand).
func (w *writer) writeResultChecks(c *conversation.Call, outOfBand bool) {
	checks := w.resultChecks(c)
	if outOfBand && len(checks) > 0 {
		w.comment("the result depended on what the person did in the browser; its checks are left as comments:")
		for _, l := range checks {
			w.comment("%s", l)
		}
		return
	}
	for _, l := range checks {
		w.buf.WriteString(l + "\n")
	}
}

func describe(c *conversation.Call) string {
	if c.Name == "" {
		return c.Method
	}
	return c.Method + " " + c.Name
}

// command is the line that sends the call.
func (w *writer) command(c *conversation.Call) (string, error) {
	if line, ok := listCommands[c.Method]; ok {
		return line, nil
	}
	switch c.Method {
	case "tools/call", "prompts/get":
		return w.argsCommand(c)
	case "resources/read":
		return fromcall.Command(c.Method, c.Name, nil)
	case conversation.MethodSetLevel:
		return "logging " + syntax.Word(c.Name), nil
	}
	return "", fmt.Errorf("a script has no command for %s", c.Method)
}

// listCommands are the commands of the list requests, by method.
var listCommands = map[string]string{
	"tools/list":               "list tools",
	"prompts/list":             "list prompts",
	"resources/list":           "list resources",
	"resources/templates/list": "list resource_templates",
}

// argsCommand is the line that sends a call with arguments (a tool's, a
// prompt's), with a note of the arguments it hides.
func (w *writer) argsCommand(c *conversation.Call) (string, error) {
	args := map[string]any{}
	if len(c.Args) > 0 && string(c.Args) != "null" {
		dec := json.NewDecoder(bytes.NewReader(c.Args))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return "", fmt.Errorf("its arguments are not a JSON object")
		}
	}
	if _, paths := credential.HideFields(args, nil); len(paths) > 0 {
		w.hiddenArgs = fromcall.HiddenNote("the arguments", paths)
	}
	return fromcall.Command(c.Method, c.Name, args)
}

// given says what the answers of a call were.
type given struct {
	outOfBand bool // one was given outside the conversation (a URL the person opened)
	failed    bool // the client answered one with an error
}

// answers writes the answers of c's questions, before the call.
func (w *writer) answers(c *conversation.Call) given {
	var g given
	for _, q := range c.Questions {
		key := ""
		if q.Key != "" && syntax.AnswerKey(q.Key) && q.Via != exchange.ViaRequest {
			key = q.Key + "="
		}
		switch q.Method {
		case "sampling/createMessage":
			w.sampleResponse(q)
			continue
		case "roots/list":
			w.rootsAnswer(q)
			continue
		}
		a := w.elicitAnswer(key, q)
		g.failed = g.failed || a.failed
		g.outOfBand = g.outOfBand || a.outOfBand
	}
	return g
}

// elicitAnswer writes the answer to the elicitation q, key being how the
// line names it ("KEY=" or nothing).
func (w *writer) elicitAnswer(key string, q *conversation.Question) given {
	var g given
	switch {
	case q.AnswerErr != nil:
		g.failed = true
		w.warn(q.AnswerLine, "the client answered the question at line %d with an error (%s): the script cancels it instead, and checks nothing of the result", q.Line, oneLine(q.AnswerErr.Message))
		w.comment("the client answered this question with an error (line %d of the recording); cancel stands for it", q.AnswerLine)
		w.line("%s %scancel", cmdname.ElicitResponse, key)
	case q.Answer == nil:
		w.comment("nobody answered the question at line %d of the recording; cancel stands for it", q.Line)
		w.line("%s %scancel", cmdname.ElicitResponse, key)
	case q.Mode() == "url" && q.Action() == "accept":
		g.outOfBand = true
		// The link may carry a token, a code or a sign-in's state.
		url := credential.RedactURL(urlOf(q))
		w.warn(q.Line, "the person accepted to open %s (the URL question at line %d): what they did in the browser a script cannot do, so the server may not get what it waits for", url, q.Line)
		w.comment("the person accepted to open %s; a script accepts without opening it", url)
		w.line("%s %saccept", cmdname.ElicitResponse, key)
	default:
		line := w.elicitResponse(key, q)
		if !parses(line) {
			g.failed = true
			w.warn(q.AnswerLine, "the answer at line %d is too long for a script line (%d bytes): the script cancels instead, and checks nothing of the result", q.AnswerLine, len(line))
			w.comment("the answer at line %d of the recording is too long for a script line; cancel stands for it", q.AnswerLine)
			line = cmdname.ElicitResponse + " " + key + "cancel"
		}
		w.line("%s", line)
	}
	return g
}

// oneLine is the first line of s, marked when there is more.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

func urlOf(q *conversation.Question) string {
	var p struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(q.Params, &p)
	return p.URL
}

func (w *writer) elicitResponse(key string, q *conversation.Question) string {
	var a struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(q.Answer, &a)
	action := a.Action
	switch action {
	case "accept", "decline", "cancel":
	default:
		w.warn(q.AnswerLine, "the answer at line %d has the action %q: the script cancels instead", q.AnswerLine, action)
		action = "cancel"
	}
	line := cmdname.ElicitResponse + " " + key + action
	if action != "accept" {
		return line
	}
	// The answer is sent as recorded: where the tester would fill in a
	// default for a field the recorded answer left out, "exact" stops it.
	exact := ""
	none := len(a.Content) == 0 || string(a.Content) == "null"
	var content map[string]any
	if (none || json.Unmarshal(a.Content, &content) == nil) && answer.FillsDefaults(requestedSchema(q), content) {
		exact = " exact"
	}
	if none {
		return line + exact
	}
	if hidden, paths := hideJSON(a.Content); len(paths) > 0 {
		a.Content = hidden
		w.comment("%s", fromcall.HiddenNote("the answer", paths))
	}
	v, err := expect.Decode(a.Content)
	if err != nil {
		return line
	}
	text := expect.Compact(v)
	if strings.Contains(text, "'") {
		return line + " " + text + exact // bare JSON needs no quotes
	}
	return line + " '" + text + "'" + exact
}

// requestedSchema is the requested schema of the form question q, as
// recorded; nil when there is none.
func requestedSchema(q *conversation.Question) any {
	var p struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(q.Params, &p) != nil || len(p.RequestedSchema) == 0 {
		return nil
	}
	return p.RequestedSchema
}

// sampleResponse writes the model reply the client gave.
func (w *writer) sampleResponse(q *conversation.Question) {
	if q.Answer == nil {
		w.warn(q.Line, "the request for a model reply at line %d got no reply: the script gives none", q.Line)
		w.comment("the request for a model reply at line %d of the recording got no reply", q.Line)
		return
	}
	var r struct {
		Role       string          `json:"role"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
		Content    json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(q.Answer, &r)
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(r.Content), []byte("[")) {
		_ = json.Unmarshal(r.Content, &items)
	} else {
		items = make([]struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}, 1)
		_ = json.Unmarshal(r.Content, &items[0])
	}
	var texts []string
	for _, it := range items {
		if it.Type != "text" {
			w.warn(q.AnswerLine, "the model reply at line %d holds %s content, which sample_response cannot give: the script gives its text only", q.AnswerLine, it.Type)
			continue
		}
		texts = append(texts, it.Text)
	}
	s := answer.Sample{Text: strings.Join(texts, "\n"), Model: r.Model, StopReason: r.StopReason, Role: r.Role}
	if s.Role == "assistant" {
		s.Role = ""
	}
	line := cmdname.SampleResponse + " " + syntax.Quote(s.String())
	if !parses(line) {
		w.warn(q.AnswerLine, "the model reply at line %d is too long for a script line (%d bytes): the script gives none", q.AnswerLine, len(line))
		w.comment("the model reply at line %d of the recording is too long for a script line", q.AnswerLine)
		return
	}
	w.line("%s", line)
}

// rootsAnswer keeps the roots the client gave, for the script's roots
// line: one set per script.
func (w *writer) rootsAnswer(q *conversation.Question) {
	if q.Answer == nil {
		return
	}
	var r struct {
		Roots []struct {
			URI  string `json:"uri"`
			Name string `json:"name"`
		} `json:"roots"`
	}
	_ = json.Unmarshal(q.Answer, &r)
	var words []string
	for _, root := range r.Roots {
		word := root.URI
		if root.Name != "" || strings.Contains(root.URI, "=") {
			word += "=" + root.Name
		}
		words = append(words, syntax.Quote(word))
	}
	raw := strings.Join(words, " ")
	switch {
	case w.roots == "" && len(words) > 0:
		w.roots, w.rootsRaw = cmdname.Roots+" "+raw, raw
	case w.rootsRaw != raw && len(words) > 0:
		w.warn(q.AnswerLine, "the client gave other roots at line %d than before: a script declares one set, the first", q.AnswerLine)
	}
}

// questionChecks writes the checks of what was asked.
func (w *writer) questionChecks(c *conversation.Call) {
	n := 0
	for _, q := range c.Questions {
		// Requests for a model reply or for the roots are answered, not
		// checked: the checks read the elicitations of a command.
		if q.Method == "elicitation/create" {
			w.elicitationChecks(q)
			n++
		}
	}
	if n > 0 {
		w.line("%s %d", cmdname.AssertElicitedCount, n)
	}
}

// elicitationChecks writes the checks of the elicitation q: that it was
// asked, in its mode, and what it asked (its message, schema and link).
func (w *writer) elicitationChecks(q *conversation.Question) {
	sel := ""
	if q.Key != "" && syntax.AnswerKey(q.Key) {
		sel = " key=" + q.Key
	}
	obj := paramsObject(q)
	msg, _ := obj.Get("message")
	text, _ := msg.(string)
	check := expect.NewObject()
	line := cmdname.AssertElicited
	if text != "" && w.opts.Match == expect.Exact {
		// The message as text when it does not change from run
		// to run, else as a pattern in the question's check.
		if q := syntax.Quote(text); expect.Generalize(text) == expect.Escape(text) && parses(line+" "+q) {
			line += " " + q
		} else {
			check.Set("message", text)
		}
	}
	switch mode := q.Mode(); mode {
	case "form", "url":
		w.line("%s%s mode=%s", line, sel, mode)
	default:
		// A mode the language cannot write as a filter is
		// checked, exactly, in the question's check.
		w.line("%s%s", line, sel)
		check.Set("mode", mode)
	}
	w.checkAsked(check, obj)
	if len(check.Keys) > 0 {
		if l, ok := w.fittingJSON(q.Line, cmdname.AssertQuestion+sel, check, nil); ok {
			w.buf.WriteString(l + "\n")
		}
	}
}

// checkAsked adds to check what the question's params obj asked for: its
// requested schema and its link, unless the link carries a credential.
func (w *writer) checkAsked(check, obj *expect.Object) {
	for _, k := range []string{"requestedSchema", "url"} {
		x, ok := obj.Get(k)
		if u, isText := x.(string); ok && isText && k == "url" && credential.RedactURL(u) != u {
			// A link that carries a credential is not checked:
			// the check would hold it.
			w.comment("the link of the question carries a credential (%s); it is not checked", credential.RedactURL(u))
			continue
		}
		if ok {
			check.Set(k, x)
		}
	}
}

// paramsObject is the params of q as an object, empty when they are not one.
func paramsObject(q *conversation.Question) *expect.Object {
	v, err := expect.Decode(q.Params)
	if err != nil {
		return expect.NewObject()
	}
	if obj, _ := v.(*expect.Object); obj != nil {
		return obj
	}
	return expect.NewObject()
}

// fittingJSON is the check cmd of v as the options ask, or, when that is
// too long for a script, by shape, with a warning; ok is false when not
// even the shape fits (also a warning).
func (w *writer) fittingJSON(line int, cmd string, v expect.Value, ignore []expect.Path) (string, bool) {
	if l := jsonLine(cmd, expect.Expect(v, expect.ExpectOptions{Mode: w.opts.Match, Ignore: ignore})); parses(l) {
		return l, true
	}
	if w.opts.Match != expect.Shape {
		if l := jsonLine(cmd, expect.Expect(v, expect.ExpectOptions{Mode: expect.Shape, Ignore: ignore})); parses(l) {
			w.warn(line, "what line %d of the recording holds is too long for a script to check exactly: %s checks its shape", line, strings.Fields(cmd)[0])
			return l, true
		}
	}
	w.warn(line, "what line %d of the recording holds is too long for a script to check: it is not checked", line)
	return "", false
}

func jsonLine(cmd string, v expect.Value) string {
	// termsafe.JSON: the same value, with no "##[" a CI runner would read.
	c := string(termsafe.JSON([]byte(expect.Compact(v))))
	if len(c) > heredocAt {
		body := string(termsafe.JSON([]byte(expect.Indent(v, "  "))))
		marker := "END"
		for n := 2; containsLine(body, marker); n++ {
			marker = fmt.Sprintf("END%d", n)
		}
		return cmd + " <<" + marker + "\n" + body + "\n" + marker
	}
	if !strings.Contains(c, "'") {
		return cmd + " '" + c + "'"
	}
	if strings.HasPrefix(c, "{") || strings.HasPrefix(c, "[") {
		return cmd + " " + c
	}
	return cmd + " " + syntax.Quote(c)
}

// textLine is a check of a text: quoted on its line, or, for a text of
// several lines that shows nothing hidden and no line a CI runner reads as
// a workflow command, in a here-document, as it reads.
func textLine(cmd, text string) string {
	if !strings.Contains(text, "\n") || termsafe.Has(strings.ReplaceAll(text, "\n", "")) || strings.ContainsAny(text, "\r\t") || hasCommand(text) {
		return cmd + " " + syntax.Quote(text)
	}
	marker := "END"
	for n := 2; containsLine(text, marker); n++ {
		marker = fmt.Sprintf("END%d", n)
	}
	return cmd + " <<" + marker + "\n" + text + "\n" + marker
}

// hasCommand reports whether a line of text reads as a workflow command.
func hasCommand(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if termsafe.WorkflowCommand(l) {
			return true
		}
	}
	return false
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// resultChecks are the checks of how the call ended, one string each
// (a here-document is one string of several lines).
func (w *writer) resultChecks(c *conversation.Call) []string {
	if c.Err != nil {
		return w.errorChecks(c)
	}
	obj := resultObject(c.Result)
	if obj == nil {
		return nil
	}
	var out []string
	if c.Method == "tools/call" {
		if e, _ := obj.Get("isError"); e == true {
			out = append(out, cmdname.AssertIsError)
		}
		obj.Delete("isError")
	}
	if text, ok := w.textOnly(c, obj); ok {
		if l := textCheck(text); parses(l) {
			return append(out, l)
		}
		// Too long for a line or a here-document as text: as JSON.
	}
	exp := expect.Expect(obj, expect.ExpectOptions{Mode: w.opts.Match, Ignore: w.opts.Ignore})
	if e, ok := exp.(*expect.Object); ok && len(e.Keys) == 0 {
		return out
	}
	if l, ok := w.fittingJSON(c.ResultLine, cmdname.AssertJSON, obj, w.opts.Ignore); ok {
		out = append(out, l)
	}
	return out
}

// resultObject is what a result says, without what says how it travels:
// its metadata, its kind, the next page, how long it may be cached. It is
// nil when there is no result, or it is not an object.
func resultObject(result json.RawMessage) *expect.Object {
	if result == nil {
		return nil
	}
	v, err := expect.Decode(result)
	if err != nil {
		return nil
	}
	obj, ok := v.(*expect.Object)
	if !ok {
		return nil
	}
	for _, k := range []string{"_meta", "resultType", "inputRequests", "nextCursor", "ttlMs", "cacheScope"} {
		obj.Delete(k)
	}
	return obj
}

// errorChecks are the checks of a call that ended with an error: its code,
// and when exact checks are asked for, its message.
func (w *writer) errorChecks(c *conversation.Call) []string {
	out := []string{fmt.Sprintf("%s %d", cmdname.AssertErrorCode, c.Err.Code)}
	if w.opts.Match == expect.Exact {
		l := cmdname.AssertMatch + " " + syntax.Quote(expect.Generalize(fmt.Sprintf("RPC error (%d): %s", c.Err.Code, c.Err.Message)))
		if parses(l) {
			out = append(out, l)
		} else {
			w.warn(c.ResultLine, "the error message at line %d is too long for a script line: only its code is checked", c.ResultLine)
		}
	}
	return out
}

// textCheck is the check of a result's text: equal when it does not change
// from run to run, else a match of it with placeholders.
func textCheck(text string) string {
	p := expect.Generalize(text)
	if p == expect.Escape(text) {
		return textLine(cmdname.AssertEquals, text)
	}
	return textLine(cmdname.AssertMatch, p)
}

// textOnly reports whether a tool's result is text contents alone (and
// exact checks are asked for, nothing of them ignored), and their text.
func (w *writer) textOnly(c *conversation.Call, obj *expect.Object) (string, bool) {
	if c.Method != "tools/call" || w.opts.Match != expect.Exact || len(obj.Keys) != 1 || obj.Keys[0] != "content" {
		return "", false
	}
	if w.ignoresContent() {
		return "", false
	}
	items, ok := obj.Values["content"].([]any)
	if !ok || len(items) == 0 {
		return "", false
	}
	var texts []string
	for _, it := range items {
		text, ok := textItem(it)
		if !ok {
			return "", false
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n"), true
}

// ignoresContent reports whether the options ignore something of a
// result's content.
func (w *writer) ignoresContent() bool {
	for _, p := range w.opts.Ignore {
		if len(p) > 0 && (p[0] == "content" || p[0] == expect.Any) {
			return true
		}
	}
	return false
}

// textItem is the text of a content item that is text alone (its type,
// its text, perhaps its _meta); ok is false for any other.
func textItem(it any) (string, bool) {
	o, ok := it.(*expect.Object)
	if !ok {
		return "", false
	}
	for _, k := range o.Keys {
		if k != "type" && k != "text" && k != "_meta" {
			return "", false
		}
	}
	typ, _ := o.Get("type")
	text, isText := o.Values["text"].(string)
	if typ != "text" || !isText {
		return "", false
	}
	return text, true
}

// hideJSON hides the secrets of an answer's content (credential.HideFields)
// and returns it with the paths of those hidden; raw is returned as it is
// when nothing is.
func hideJSON(raw json.RawMessage) (json.RawMessage, []string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw, nil
	}
	hidden, paths := credential.HideFields(v, nil)
	if len(paths) == 0 {
		return raw, nil
	}
	b, err := json.Marshal(hidden)
	if err != nil {
		return raw, nil
	}
	return b, paths
}
