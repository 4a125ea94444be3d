// Package exchange keeps the ordered log of every question a server asked
// and the answer it got. The printer renders [ELICIT] lines from it, test
// scripts assert on it, and the audit reads it as evidence.
package exchange

import (
	"encoding/json"
	"sync"

	"github.com/askback/askback/internal/text/credential"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How a question reached the client.
const (
	ViaInputRequired = "input_required"     // a 2026-07-28 result with resultType "input_required"
	ViaRequest       = "elicitation/create" // a server-initiated request (2025-11-25 and older)
	ViaURLError      = "url-required-error" // the -32042 error carrying URL questions (2025-11-25)
	ViaTask          = "task"               // a task waiting in input_required (tasks extension)
	// A server-initiated request for a model reply or for the roots
	// (2025-11-25 and older).
	ViaSamplingRequest = "sampling/createMessage"
	ViaRootsRequest    = "roots/list"
)

// What a question asks for, besides elicitation (see Entry.Asks).
const (
	AsksSampling = "sampling/createMessage" // a model reply
	AsksRoots    = "roots/list"             // the client's roots
)

// Entry is one question and its answer. Most are elicitations (Params and
// Answer); a request for a model reply (sampling) has Sample and Reply, a
// request for the roots has Roots.
type Entry struct {
	Seq int // position in the log, from 1
	// Method is the call that asked (tools/call, prompts/get,
	// resources/read) or, outside a call, the request of the tester's the
	// server asked in (tools/list, ping, ...), "(between calls)" when none
	// was waiting; Name the tool or prompt name, or the resource URI, of
	// a call.
	Method string
	Name   string
	Via    string // one of the Via constants
	Key    string // the inputRequests key; empty for server-initiated requests
	Round  int    // the round of the call in which the question came, from 1
	Server string // the asking server's name
	Params *mcp.ElicitParams
	// Answer is what was sent back, nil when no answer was sent; the value
	// of each field that is a secret, by its name, title or description or
	// by its form (credential.HideFields), is credential.Hidden here: what
	// reads the log (the output, reports, recorded scripts) never holds it.
	Answer *mcp.ElicitResult
	// Hidden names the fields of the answer whose values the log hides, as
	// credential.HideFields names them.
	Hidden []string
	Note   string // why the answer was chosen, e.g. "no answer left: declined"
	// NoAnswer is set when nobody had an answer for the question, so the
	// tester declined it (see Note).
	NoAnswer bool
	Elapsed  int64 // nanoseconds from question to answer
	// Asks is empty for an elicitation, else AsksSampling or AsksRoots.
	Asks   string
	Sample *mcp.CreateMessageWithToolsParams //lint:ignore SA1019 sampling is deprecated but still answered
	Reply  *mcp.CreateMessageWithToolsResult //lint:ignore SA1019 sampling is deprecated but still answered
	Roots  []*mcp.Root                       //lint:ignore SA1019 roots are deprecated but still answered
}

// IsElicitation reports whether the entry is an elicitation (a form or URL
// question), as opposed to a sampling or roots request.
func (e *Entry) IsElicitation() bool { return e.Asks == "" }

// Mode is the question's mode, "form" when the server left it out.
func (e *Entry) Mode() string {
	if e.Params == nil || e.Params.Mode == "" {
		return "form"
	}
	return e.Params.Mode
}

// Message is the question's message.
func (e *Entry) Message() string {
	if e.Params == nil {
		return ""
	}
	return e.Params.Message
}

// URL is the link of a URL question, empty for a form.
func (e *Entry) URL() string {
	if e.Params == nil {
		return ""
	}
	return e.Params.URL
}

// Schema is the requested schema of a form question, nil for a URL.
func (e *Entry) Schema() any {
	if e.Params == nil {
		return nil
	}
	return e.Params.RequestedSchema
}

// Log is an ordered, concurrency-safe log of entries with observers that see
// each entry as it is added.
type Log struct {
	mu        sync.Mutex
	entries   []Entry
	observers []func(Entry)
}

// Observe registers f to be called, in order, with every entry added from
// now on.
func (l *Log) Observe(f func(Entry)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.observers = append(l.observers, f)
}

// Add appends an entry, numbering it, and tells the observers. The
// answer's secrets are hidden in the entry kept (see Entry.Answer); the
// answer given is left as it is.
func (l *Log) Add(e Entry) Entry {
	hideAnswer(&e)
	l.mu.Lock()
	e.Seq = len(l.entries) + 1
	l.entries = append(l.entries, e)
	obs := append([]func(Entry){}, l.observers...)
	l.mu.Unlock()
	for _, f := range obs {
		f(e)
	}
	return e
}

// Len is the number of entries so far.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Since returns a copy of the entries after the first n.
func (l *Log) Since(n int) []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n >= len(l.entries) {
		return nil
	}
	return append([]Entry(nil), l.entries[n:]...)
}

// Entries returns a copy of all entries.
func (l *Log) Entries() []Entry { return l.Since(0) }

// hideAnswer replaces e.Answer with a copy whose secret fields are hidden,
// when it has any.
func hideAnswer(e *Entry) {
	if e.Answer == nil || len(e.Answer.Content) == 0 {
		return
	}
	describe := describer(e.Schema())
	v, paths := credential.HideFields(map[string]any(e.Answer.Content), describe)
	if len(paths) == 0 {
		return
	}
	a := *e.Answer
	a.Content = v.(map[string]any)
	e.Answer = &a
	e.Hidden = paths
}

// describer returns the title and description of each field of a
// requested schema.
func describer(schema any) func(string) []string {
	var s struct {
		Properties map[string]struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	if b, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return func(name string) []string {
		p := s.Properties[name]
		return []string{p.Title, p.Description}
	}
}
