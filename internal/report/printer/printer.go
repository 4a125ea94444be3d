// Package printer renders what a server said, as text a person reads (the
// format of the deploy example's transcripts) or as JSON. No other code prints
// results. Everything a server sent is neutralised on the way (see
// internal/text/termsafe): escaped in text, written as \u escapes in JSON.
package printer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicit renders one question and its answer as an [ELICIT] line:
//
//	[ELICIT] <message> → <action>[ <content>]
//
// The content is the compact JSON that was sent, keys sorted. A URL
// question shows its full URL after the message.
func Elicit(w io.Writer, e exchange.Entry) {
	var b strings.Builder
	b.WriteString("[ELICIT] ")
	b.WriteString(oneLine(e.Message()))
	if e.Mode() == "url" && e.Params != nil {
		b.WriteString(" <" + termsafe.Line(e.Params.URL) + ">")
	}
	b.WriteString(" → ")
	if e.Answer == nil {
		b.WriteString("(no answer)")
	} else {
		b.WriteString(e.Answer.Action)
		if e.Answer.Action == "accept" && e.Answer.Content != nil {
			c, _ := json.Marshal(e.Answer.Content)
			b.WriteString(" " + string(termsafe.JSON(c)))
		}
	}
	fmt.Fprintln(w, b.String())
}

// Sample renders a request for a model reply and the reply sent, as a
// "[SAMPLE] message → reply (model NAME)" line. The message is the last
// one the server sent.
func Sample(w io.Writer, e exchange.Entry) {
	var b strings.Builder
	b.WriteString("[SAMPLE] ")
	b.WriteString(oneLine(lastSampleMessage(e)))
	b.WriteString(" → ")
	if e.Reply == nil {
		b.WriteString("(no answer)")
	} else {
		b.WriteString(oneLine(strings.Join(Texts(e.Reply.Content), " ")))
		fmt.Fprintf(&b, " (model %s)", oneLine(e.Reply.Model))
	}
	fmt.Fprintln(w, b.String())
}

// Roots renders a request for the roots and the roots sent, as a
// "[ROOTS] → URI (NAME), URI" line.
func Roots(w io.Writer, e exchange.Entry) {
	parts := make([]string, 0, len(e.Roots))
	for _, r := range e.Roots {
		if r == nil {
			continue
		}
		p := oneLine(r.URI)
		if r.Name != "" {
			p += " (" + oneLine(r.Name) + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		parts = append(parts, "(none)")
	}
	fmt.Fprintf(w, "[ROOTS] → %s\n", strings.Join(parts, ", "))
}

// Question renders any entry of the exchange log: [ELICIT], [SAMPLE] or
// [ROOTS].
func Question(w io.Writer, e exchange.Entry) {
	switch e.Asks {
	case exchange.AsksSampling:
		Sample(w, e)
	case exchange.AsksRoots:
		Roots(w, e)
	default:
		Elicit(w, e)
	}
}

// oneLine neutralises s and puts it on one line, runs of white space
// collapsed.
func oneLine(s string) string {
	return strings.Join(strings.Fields(termsafe.Line(s)), " ")
}

// ToolResult renders a tool's result: one "Content N (Kind):" block per
// content item, then structured content, if any.
func ToolResult(w io.Writer, res *mcp.CallToolResult) {
	if res.IsError {
		fmt.Fprintln(w, "Error (the tool reported isError):")
	}
	for i, c := range res.Content {
		Content(w, i, c)
	}
	if res.StructuredContent != nil {
		fmt.Fprintln(w, "Structured content:")
		writeIndentedJSON(w, res.StructuredContent)
	}
}

// Content renders one content item.
func Content(w io.Writer, i int, c mcp.Content) {
	switch c := c.(type) {
	case *mcp.TextContent:
		fmt.Fprintf(w, "Content %d (Text):\n%s\n", i, termsafe.Block(c.Text))
	case *mcp.ImageContent:
		fmt.Fprintf(w, "Content %d (Image): %s, %d bytes\n", i, orUnknown(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		fmt.Fprintf(w, "Content %d (Audio): %s, %d bytes\n", i, orUnknown(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		fmt.Fprintf(w, "Content %d (Resource link): %s <%s>%s\n", i, orUnknown(c.Name), termsafe.Line(c.URI), mimeSuffix(c.MIMEType))
		if c.Description != "" {
			fmt.Fprintf(w, "%s\n", termsafe.Block(c.Description))
		}
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			fmt.Fprintf(w, "Content %d (Resource): (empty)\n", i)
			return
		}
		fmt.Fprintf(w, "Content %d (Resource): <%s>%s\n", i, termsafe.Line(r.URI), mimeSuffix(r.MIMEType))
		ResourceBody(w, r)
	default:
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "Content %d (%T):\n%s\n", i, c, termsafe.JSON(b))
	}
}

// ResourceBody renders the text of a resource, or the size of its blob.
func ResourceBody(w io.Writer, r *mcp.ResourceContents) {
	switch {
	case r.Blob != nil:
		fmt.Fprintf(w, "(binary, %d bytes)\n", len(r.Blob))
	default:
		fmt.Fprintln(w, termsafe.Block(r.Text))
	}
}

// PromptResult renders a prompt: its description, then its messages.
func PromptResult(w io.Writer, res *mcp.GetPromptResult) {
	if res.Description != "" {
		fmt.Fprintf(w, "Description: %s\n", termsafe.Block(res.Description))
	}
	for i, m := range res.Messages {
		var b strings.Builder
		Content(&b, 0, m.Content)
		// "Content 0 (Text):" becomes "Message i (role, Text):".
		body := strings.TrimPrefix(b.String(), "Content 0 (")
		fmt.Fprintf(w, "Message %d (%s, %s", i, termsafe.Line(string(m.Role)), body)
	}
}

// ResourceResult renders the contents of a read resource.
func ResourceResult(w io.Writer, res *mcp.ReadResourceResult) {
	for i, c := range res.Contents {
		fmt.Fprintf(w, "Contents %d: <%s>%s\n", i, termsafe.Line(c.URI), mimeSuffix(c.MIMEType))
		ResourceBody(w, c)
	}
}

// JSON writes v as one indented JSON document, control and invisible
// characters written as \u escapes (see termsafe.JSON).
func JSON(w io.Writer, v any) error { return encode(w, v, "  ") }

// JSONLine writes v as JSON on one line, as JSON does: for streams of JSON
// lines.
func JSONLine(w io.Writer, v any) error { return encode(w, v, "") }

func encode(w io.Writer, v any, indent string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if indent != "" {
		// Indented as it is written: a copy of the whole indented text
		// took several times the size of a document of many small values.
		return writeIndented(w, termsafe.JSON(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
}

// writeIndentedJSON writes v indented, escaped as JSON does, and a newline.
// The text goes to w as it is made (see writeIndented): a result of many
// small values takes several times its size once indented.
func writeIndentedJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(w, termsafe.Block(fmt.Sprint(v)))
		return
	}
	_ = writeIndented(w, termsafe.JSON(b))
}

// writeIndented writes doc, compact JSON, to w indented by two spaces a
// level and ended by a newline, as json.Indent would make it, through a
// small buffer instead of a copy of the whole indented text. (termsafe.JSON
// gives the same escapes for the compact text as for the indented one:
// indenting only adds white space between tokens.)
func writeIndented(w io.Writer, doc []byte) error {
	bw := bufio.NewWriter(w)
	depth := 0
	inString, escaped := false, false
	newline := func() {
		_ = bw.WriteByte('\n')
		for range depth {
			_, _ = bw.WriteString("  ")
		}
	}
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if inString {
			_ = bw.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			_ = bw.WriteByte(c)
		case '{', '[':
			_ = bw.WriteByte(c)
			if i+1 < len(doc) && (doc[i+1] == '}' || doc[i+1] == ']') {
				_ = bw.WriteByte(doc[i+1]) // empty: kept as {} or []
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			_ = bw.WriteByte(c)
		case ',':
			_ = bw.WriteByte(c)
			newline()
		case ':':
			_, _ = bw.WriteString(": ")
		case ' ', '\t', '\n', '\r':
		default:
			_ = bw.WriteByte(c)
		}
	}
	_ = bw.WriteByte('\n')
	return bw.Flush()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return termsafe.Line(s)
}

func mimeSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " (" + termsafe.Line(m) + ")"
}

// Texts returns the text of each content item that has one: text content
// and the text of embedded resources, in order.
func Texts(cs []mcp.Content) []string {
	var out []string
	for _, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			out = append(out, x.Text)
		case *mcp.EmbeddedResource:
			if x.Resource != nil && x.Resource.Text != "" {
				out = append(out, x.Resource.Text)
			}
		}
	}
	return out
}

// QuestionJSON is a question and its answer as JSON output shows them.
type QuestionJSON struct {
	// Asks is empty for an elicitation, else what the server asked for
	// (exchange.AsksSampling, exchange.AsksRoots).
	Asks  string `json:"asks,omitempty"`
	Key   string `json:"key,omitempty"`
	Via   string `json:"via"`
	Round int    `json:"round"`
	// Mode is an elicitation's mode (form or url); empty for sampling and
	// roots.
	Mode string `json:"mode,omitempty"`
	// Message is an elicitation's message, or the last message of a
	// request for a model reply (as its [SAMPLE] line shows it).
	Message string `json:"message"`
	URL     string `json:"url,omitempty"`
	// RequestedSchema is the form the server asked to fill in.
	RequestedSchema any `json:"requestedSchema,omitempty"`
	// Answer is what was sent back to an elicitation.
	Answer *mcp.ElicitResult `json:"answer,omitempty"`
	// Note says why the answer was chosen, or why none was sent.
	Note string `json:"note,omitempty"`
	// Sample is a request for a model reply as the server sent it, and
	// Reply the reply sent back (nil when none was).
	Sample *mcp.CreateMessageWithToolsParams `json:"sample,omitempty"` //lint:ignore SA1019 sampling is deprecated but still answered
	Reply  *mcp.CreateMessageWithToolsResult `json:"reply,omitempty"`  //lint:ignore SA1019 sampling is deprecated but still answered
	// Roots are the roots sent back to a request for them (roots/list).
	Roots []*mcp.Root `json:"roots,omitempty"` //lint:ignore SA1019 roots are deprecated but still answered
	// NoAnswer says that nobody had an answer, so the tester declined.
	NoAnswer bool `json:"noAnswer,omitempty"`
}

// QuestionsJSON turns a call's questions into their JSON form, the
// requests for a model reply and for the roots with what was sent back as
// their [SAMPLE] and [ROOTS] lines show it; never nil.
func QuestionsJSON(es []exchange.Entry) []QuestionJSON {
	out := make([]QuestionJSON, 0, len(es))
	for _, e := range es {
		q := QuestionJSON{Asks: e.Asks, Key: e.Key, Via: e.Via, Round: e.Round, NoAnswer: e.NoAnswer, Note: e.Note}
		switch e.Asks {
		case exchange.AsksSampling:
			q.Message, q.Sample, q.Reply = lastSampleMessage(e), e.Sample, e.Reply
		case exchange.AsksRoots:
			q.Roots = e.Roots
		default:
			q.Mode, q.Message, q.Answer = e.Mode(), e.Message(), e.Answer
		}
		if e.Params != nil {
			q.URL = e.Params.URL
			q.RequestedSchema = e.Params.RequestedSchema
		}
		out = append(out, q)
	}
	return out
}

// lastSampleMessage is the text of the last message of a request for a
// model reply, as the server wrote it.
func lastSampleMessage(e exchange.Entry) string {
	if e.Sample == nil || len(e.Sample.Messages) == 0 {
		return ""
	}
	m := e.Sample.Messages[len(e.Sample.Messages)-1]
	if m == nil {
		return ""
	}
	return strings.Join(Texts(m.Content), " ")
}

// Asked is the JSON output of a command that may ask questions: the
// questions with their answers, in order, and what the server finally
// answered (a result, or the handle of a task it runs).
type Asked struct {
	Questions []QuestionJSON `json:"questions"`
	Result    any            `json:"result,omitempty"`
	Task      any            `json:"task,omitempty"`
}

// waitingFor writes the questions a task waits for, in key order.
func waitingFor(w io.Writer, requests map[string]json.RawMessage) {
	fmt.Fprintln(w, "Waiting for answers to:")
	keys := make([]string, 0, len(requests))
	for k := range requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var req struct {
			Method string           `json:"method"`
			Params mcp.ElicitParams `json:"params"`
		}
		_ = json.Unmarshal(requests[k], &req)
		mode := req.Params.Mode
		if mode == "" {
			mode = "form"
		}
		fmt.Fprintf(w, "  %q (%s): %s\n", k, termsafe.Line(mode), oneLine(req.Params.Message))
	}
	fmt.Fprintln(w, "(answer them with mcp-tester tasks wait)")
}

// Task renders what tasks/get said about a task: its status and status
// message, the questions it waits for, and its result or error once it
// ended.
func Task(w io.Writer, t *tasks.GetTaskResult) {
	fmt.Fprintf(w, "Task %s: %s\n", termsafe.Line(t.TaskID), termsafe.Line(string(t.Status)))
	if t.StatusMessage != "" {
		fmt.Fprintf(w, "Status message: %s\n", termsafe.Line(t.StatusMessage))
	}
	if t.CreatedAt != "" {
		fmt.Fprintf(w, "Created: %s, last updated: %s\n", termsafe.Line(t.CreatedAt), termsafe.Line(t.LastUpdatedAt))
	}
	if len(t.InputRequests) > 0 {
		waitingFor(w, t.InputRequests)
	}
	if len(t.Result) > 0 {
		var res mcp.CallToolResult
		if err := json.Unmarshal(t.Result, &res); err != nil {
			fmt.Fprintf(w, "Result (unreadable: %s):\n%s\n", termsafe.Line(err.Error()), termsafe.JSON(t.Result))
		} else {
			ToolResult(w, &res)
		}
	}
	if t.Error != nil {
		fmt.Fprintf(w, "Error: %s (JSON-RPC error %d)\n", termsafe.Line(t.Error.Message), t.Error.Code)
	}
}
