// Package fromcall writes what happened in a session as a .mcp test script
// (the language of docs/scripts.md): for every call, the answers that were
// given (elicit_response), the call itself (call_tool, get_prompt,
// read_resource), what was asked (assert_elicited) and a stable part of the
// result (assert_contains). Replayed with `mcp-tester test`, the script
// gives the same answers to the same questions and checks that the server
// still behaves the same.
package fromcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/script/cmdname"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/script/syntax"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Step is one asking command of a session and what came of it.
type Step struct {
	Method    string           // "tools/call", "prompts/get" or "resources/read"
	Name      string           // the tool or prompt name, or the resource URI
	Args      map[string]any   // the arguments; a prompt's are strings
	Questions []exchange.Entry // the questions asked during the command, in order, with the answers sent
	// Result is the final result: *mcp.CallToolResult, *mcp.GetPromptResult
	// or *mcp.ReadResourceResult. Nil writes no assertion on it.
	Result any
}

// Header is the comment a new script file starts with.
const Header = "# Recorded by mcp-tester. Replay: mcp-tester test -s FILE -c SERVER\n"

// Write writes steps as script text, a blank line between them.
func Write(w io.Writer, steps ...Step) error {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteString("\n")
		}
		text, err := s.Script()
		if err != nil {
			return err
		}
		b.WriteString(text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Check reports whether path can be appended to, before anything is
// recorded; it leaves no file behind that was not there.
func Check(path string) error {
	return outfile.Check(path)
}

// Append adds steps to the script file at path, creating it (starting with
// [Header]) when it does not exist, readable by its owner only (it holds
// the answers given), so that several calls recorded one after the other
// make one script. hide, when not nil, is applied to the
// text written (credentials a server echoed are hidden in the file as on
// the output).
func Append(path string, hide func(string) string, steps ...Step) error {
	var buf bytes.Buffer
	if err := Write(&buf, steps...); err != nil {
		return err
	}
	if hide != nil {
		text := hide(buf.String())
		buf.Reset()
		buf.WriteString(text)
	}
	f, err := outfile.Append(path, 0o600) // it holds the answers given
	if err != nil {
		return fmt.Errorf("record to %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil {
		prefix := Header
		if st.Size() > 0 {
			prefix = "\n"
		}
		_, err = f.Write(append([]byte(prefix), buf.Bytes()...))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record to %s: %w", path, err)
	}
	return nil
}

// Script renders one step as script lines, each ending in a newline.
func (s Step) Script() (string, error) {
	var b strings.Builder
	s.Questions = writeReplies(&b, s.Questions)
	keyed := len(s.Questions) > 1
	for _, q := range s.Questions {
		line, err := elicitResponse(q, keyed)
		if err != nil {
			return "", err
		}
		if len(q.Hidden) > 0 {
			b.WriteString(syntax.Comment(HiddenNote("the answer", q.Hidden)) + "\n")
		}
		b.WriteString(line + "\n")
	}
	call, err := s.command()
	if err != nil {
		return "", err
	}
	if _, hidden := credential.HideFields(s.Args, nil); len(hidden) > 0 {
		b.WriteString(syntax.Comment(HiddenNote("the arguments", hidden)) + "\n")
	}
	b.WriteString(call + "\n")
	for _, q := range s.Questions {
		b.WriteString(assertElicited(q) + "\n")
	}
	if tr, ok := s.Result.(*mcp.CallToolResult); ok && tr.IsError {
		b.WriteString(cmdname.AssertIsError + "\n")
	}
	if text := stableText(s.Result); text != "" {
		b.WriteString(cmdname.AssertContains + " " + syntax.Quote(text) + "\n")
	}
	return b.String(), nil
}

// writeReplies writes the model replies of questions as sample_response
// lines and the first roots given as a roots line, to go before the
// command; it returns the elicitations, which are written as answers.
func writeReplies(b *strings.Builder, questions []exchange.Entry) []exchange.Entry {
	qs := questions[:0:0]
	rootsDone := false
	for _, q := range questions {
		switch {
		case q.IsElicitation():
			qs = append(qs, q)
		case q.Asks == exchange.AsksSampling && q.Reply != nil:
			b.WriteString(cmdname.SampleResponse + " " + syntax.Quote(sampleOf(q).String()) + "\n")
		case q.Asks == exchange.AsksRoots && !rootsDone && len(q.Roots) > 0:
			rootsDone = true
			b.WriteString(rootsLine(q.Roots) + "\n")
		}
	}
	return qs
}

// rootsLine is the roots line of the roots a client gave.
//
//lint:ignore SA1019 roots are deprecated but still answered while servers ask
func rootsLine(roots []*mcp.Root) string {
	line := cmdname.Roots
	for _, r := range roots {
		if r == nil {
			continue
		}
		w := r.URI
		if r.Name != "" || strings.Contains(r.URI, "=") {
			w += "=" + r.Name
		}
		line += " " + syntax.Quote(w)
	}
	return line
}

// sampleOf is the reply of a sampling entry as sample_response writes it.
func sampleOf(q exchange.Entry) answer.Sample {
	var texts []string
	for _, c := range q.Reply.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return answer.Sample{Text: strings.Join(texts, "\n"), Model: q.Reply.Model, StopReason: q.Reply.StopReason, Role: string(q.Reply.Role)}
}

// Command writes the script command that sends a call: call_tool or
// get_prompt with the arguments by name (sorted), read_resource with the
// URI. An argument whose name or value a script cannot write is an error.
// The value of an argument that is a secret, by its name or its form
// (credential.HideFields), is written as credential.Hidden; HiddenNote
// says where, for a comment before the command.
func Command(method, name string, args map[string]any) (string, error) {
	return Step{Method: method, Name: name, Args: args}.command()
}

// HiddenNote says which values of what (an answer, the arguments) are
// written as credential.Hidden, the paths that credential.HideFields
// names: the text of a comment, so that a script can be completed by
// hand.
func HiddenNote(what string, paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = syntax.Quote(p)
	}
	return fmt.Sprintf("%s: %s hidden (a secret); write the value in place of %s before replaying",
		what, strings.Join(quoted, ", "), credential.Hidden)
}

func (s Step) command() (string, error) {
	if v, hidden := credential.HideFields(s.Args, nil); len(hidden) > 0 {
		s.Args, _ = v.(map[string]any)
	}
	switch s.Method {
	case "tools/call", "prompts/get":
		verb := cmdname.CallTool
		if s.Method == "prompts/get" {
			verb = cmdname.GetPrompt
		}
		parts := []string{verb, syntax.Word(s.Name)}
		keys := make([]string, 0, len(s.Args))
		for k := range s.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !syntax.ArgKey(k) {
				return "", fmt.Errorf("record %s %q: the argument name %q cannot be written in a script (use letters, digits, _, - and .)", s.Method, s.Name, k)
			}
			v, err := value(s.Args[k])
			if err != nil {
				return "", fmt.Errorf("record %s %q: argument %s: %w", s.Method, s.Name, k, err)
			}
			parts = append(parts, k+":"+v)
		}
		return strings.Join(parts, " "), nil
	case "resources/read":
		return cmdname.ReadResource + " " + syntax.Quote(s.Name), nil
	}
	return "", fmt.Errorf("record: cannot write a %q step", s.Method)
}

// elicitResponse is the line that queues the answer q got.
func elicitResponse(q exchange.Entry, keyed bool) (string, error) {
	a := q.Answer
	action := "decline"
	if a != nil {
		action = a.Action
	}
	line := cmdname.ElicitResponse + " "
	if keyed && q.Key != "" && syntax.AnswerKey(q.Key) {
		line += q.Key + "="
	}
	line += action
	if action != "accept" || q.Mode() != "form" {
		return line, nil
	}
	if a.Content != nil {
		c, err := compactJSON(a.Content)
		if err != nil {
			return "", fmt.Errorf("record the answer to %q: %w", q.Key, err)
		}
		if strings.ContainsRune(c, '\'') {
			line += " " + c // a bare JSON object needs no quotes
		} else {
			line += " '" + c + "'"
		}
	}
	// The content is what was sent: where a default would be filled in
	// for a field it leaves out, it was sent exactly as given, and is again.
	if q.Params != nil && answer.FillsDefaults(q.Params.RequestedSchema, a.Content) {
		line += " exact"
	}
	return line, nil
}

// assertElicited checks that the question is asked again: by its message,
// or, for a URL question without one, by its link.
func assertElicited(q exchange.Entry) string {
	text := expect.CheckText(q.Message())
	if text == "" && q.Params != nil {
		text = expect.Shorten(q.Params.URL)
	}
	line := cmdname.AssertElicited
	if text != "" {
		line += " " + syntax.Quote(text)
	}
	if q.Key != "" && syntax.AnswerKey(q.Key) {
		line += " key=" + q.Key
	}
	return line + " mode=" + q.Mode()
}

// stableText picks the part of a result an assertion checks: the first
// non-empty line of its first text. Further lines are more likely to hold
// what changes from run to run (times, identifiers).
func stableText(res any) string {
	var texts []string
	switch r := res.(type) {
	case *mcp.CallToolResult:
		texts = printer.Texts(r.Content)
	case *mcp.GetPromptResult:
		for _, m := range r.Messages {
			if m != nil {
				texts = append(texts, printer.Texts([]mcp.Content{m.Content})...)
			}
		}
	case *mcp.ReadResourceResult:
		for _, c := range r.Contents {
			if c != nil && c.Text != "" {
				texts = append(texts, c.Text)
			}
		}
	}
	for _, t := range texts {
		if l := expect.CheckText(t); l != "" {
			return l
		}
	}
	return ""
}

// value writes an argument value so that the runner reads it back as the
// same JSON value: strings quoted, numbers, booleans and null bare,
// objects and arrays as bare JSON.
func value(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return syntax.Quote(x), nil
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	c, err := compactJSON(v)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(c, "{") && !strings.HasPrefix(c, "[") {
		return "", errors.New("not a JSON value the script language can write")
	}
	return c, nil
}

func compactJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	// JSON's own escapes, for what a terminal or a CI runner must not read.
	return strings.TrimSuffix(string(termsafe.JSON(buf.Bytes())), "\n"), nil
}
