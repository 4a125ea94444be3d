// Package standin serves a recording (internal/recording) as if it were
// the server: `mcp-tester serve`, to test clients.
//
// It is a go-sdk server (mcp.Server) built from the recording with the
// project's toolkit. The recorded tools, prompts, resources and templates
// are registered on it, with what initialize said (server info,
// capabilities, instructions); lists and completions are answered from the
// recorded results; each call is answered by a handler that replays the
// recorded rounds: it asks the recorded questions in an input_required
// result with a requestState it seals itself (reqstate: bound to the
// request, expiring, single use through a replay store) and checks on
// return, and the go-sdk and ask.EveryRound ask a client of 2025-11-25
// the same questions as elicitation/create requests, every round. So a
// recording of either era serves a client of either era. A call the
// server ran as a task (of the tasks extension, or of 2025-11-25) runs as
// a task of the stand-in's own for a client that asks for one, through
// the recorded statuses, questions and result, and as the call the task
// amounts to for one that does not. A recorded task of 2025-11-25 runs,
// for a client of 2026-07-28 (which the recorded server did not speak),
// as a task of the tasks extension, which the stand-in then offers such
// clients; a task one era's client started is not found by the other's,
// and a task of 2025-11-25 by no other session than the one that started
// it. Tasks show the status messages the recorded server showed, none of
// the stand-in's own.
//
// Requests are matched by method and params (see matchKey: _meta,
// requestState and inputResponses ignored, the rest compared
// canonically); ids are the client's own. The Nth request of the same
// method and params gets the Nth recorded answer, and past the last one
// the last again. A request the recording does not hold gets a JSON-RPC
// error naming the nearest recorded one.
//
// The client's answers are checked against the recorded ones (or only
// against the question's schema) and every difference is reported: a
// line on the log as it happens, and the Report at the end.
package standin

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Options.
const (
	// DefaultMaxInFlight bounds the requests answered at once: with a
	// client of 2025-11-25, a call waiting for its answers is one of them.
	// A quarter is kept for clients holding few, so that one client (such
	// as mcp-tester bench at its largest --concurrency, 1,000) has 1,152.
	DefaultMaxInFlight = 1536
	// DefaultMaxStates bounds the single-use requestStates remembered as
	// used (the replay store) until they expire: one a round of questions
	// a modern client answers, so a bench's flows for a state's lifetime.
	// The store keeps a tenth of it for clients holding few, and takes
	// room only as states are used (some tens of bytes each).
	DefaultMaxStates = replay.DefaultMaxEntries
	// MaxAttempts bounds how often a round's unanswered questions are
	// asked again.
	MaxAttempts = 5
)

// Options configure a Standin.
type Options struct {
	// Recording names the recording in the report.
	Recording string
	// Answers is AnswersExact (the default) or AnswersSchema.
	Answers string
	// Faults are injected into the requests they name.
	Faults []Fault
	// StateTTL is how long a requestState the stand-in seals is valid
	// (reqstate.DefaultTTL when zero).
	StateTTL time.Duration
	// MaxInFlight bounds the requests answered at once (DefaultMaxInFlight
	// when zero), a quarter of them kept for clients holding fewer than
	// two; one beyond it is refused with a JSON-RPC error.
	MaxInFlight int
	// MaxStates bounds the replay store (DefaultMaxStates when zero).
	MaxStates int
	// Log receives a line for each problem and note (stderr).
	Log io.Writer
	// Changed, if set, is called after each change of the report (a
	// request answered, an answer checked, a problem, a fault), without
	// the stand-in's locks held: mcp-tester serve rewrites its --report
	// file then (at most once a second), so that a stand-in that is killed
	// leaves its report as of its last events.
	Changed func()
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// EveryCall: the client is to make every recorded call; once the
	// stand-in has ended, each it did not make (and, for a recording of
	// no call, a client that made none of its requests) is a problem of
	// the report ("missing"). mcp-tester serve sets it.
	EveryCall bool
}

// Standin serves one script. It is safe for concurrent use: one Standin
// serves every session of an HTTP endpoint.
type Standin struct {
	script *Script
	opts   Options
	codec  *reqstate.Codec
	server *mcp.Server
	rep    *reporter
	notes  []string
	lists  lists

	inflight *inFlight

	mu     sync.Mutex
	served map[string]int // requests served per method and match key
	asked  int            // rounds asked in input_required results
	opened int            // of them, answered with their requestState
	// running are the calls in progress; one asked and still running
	// waits for a 2025-11-25 client's answer.
	running map[*track]string
	drop    func()    // ends the connection (stdio); nil over HTTP
	stdin   *inputEnd // the requests of the stdio client; nil over HTTP
	// nearest are the indexes of the recorded requests of each method,
	// for the nearest to an unmatched one; seed hashes their leaves.
	nearest map[string]*nearestIndex
	seed    maphash.Seed
	// readsTaskParam: served where a call's params.task is read (stdio,
	// HTTP), recorded tasks of 2025-11-25 run as tasks; tasks are those
	// running (serve_tasks2025.go).
	readsTaskParam bool
	tasks          *taskTable
	// extFor2025: the recorded server offered no tasks extension, and the
	// stand-in offers it to clients of 2026-07-28, for its recorded tasks
	// of 2025-11-25.
	extFor2025 bool
	// questionTimeout bounds the wait for a 2025-11-25 client's answer
	// over HTTP (Handler); zero over stdio, where it does not end.
	questionTimeout time.Duration
}

// New builds a stand-in for a script.
func New(script *Script, opts Options) (*Standin, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	codec, err := newCodec(opts)
	if err != nil {
		return nil, err
	}
	if err := script.checkQuestions(); err != nil {
		return nil, err
	}
	s := &Standin{
		script:   script,
		opts:     opts,
		codec:    codec,
		rep:      &reporter{log: opts.Log, r: Report{Recording: opts.Recording, Answers: opts.Answers}, changed: opts.Changed},
		inflight: newInFlight(opts.MaxInFlight),
		served:   map[string]int{},
		running:  map[*track]string{},
		nearest:  map[string]*nearestIndex{},
		seed:     maphash.MakeSeed(),
		tasks:    newTaskTable(MaxTasks, MaxTasksPerClient),
	}
	if err := s.build(); err != nil {
		return nil, err
	}
	return s, nil
}

// withDefaults is o with its zero fields given their defaults, or the
// error of an Answers that is neither mode.
func (o Options) withDefaults() (Options, error) {
	if o.Answers == "" {
		o.Answers = AnswersExact
	}
	if o.Answers != AnswersExact && o.Answers != AnswersSchema {
		return o, fmt.Errorf("answers %q: use %s or %s", o.Answers, AnswersExact, AnswersSchema)
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxStates <= 0 {
		o.MaxStates = DefaultMaxStates
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// newCodec is the codec of the requestStates a stand-in seals, with a key
// of its own made now and a replay store of opts.MaxStates.
func newCodec(opts Options) (*reqstate.Codec, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("a key to seal requestStates: %w", err)
	}
	return reqstate.New(&reqstate.Options{
		Keys: []keys.Key{{ID: "standin", Secret: secret}},
		TTL:  opts.StateTTL,
		// Every client of a stand-in is anonymous: one allowance.
		Replay: replay.NewMemory(&replay.MemoryOptions{MaxEntries: opts.MaxStates, MaxPerUser: opts.MaxStates, Now: opts.Now}),
		Now:    opts.Now,
	})
}

// checkQuestions refuses a script with a question no client can be asked,
// naming its line.
func (sc *Script) checkQuestions() error {
	for _, x := range sc.Exchanges {
		for _, q := range x.questions() {
			if _, err := inputRequest(q); err != nil {
				return &recording.Error{Line: q.Line, Err: fmt.Errorf("question %q of %s: %v", q.Key, x.Label(), err)}
			}
		}
	}
	return nil
}

// Server returns the go-sdk server that serves the script.
func (s *Standin) Server() *mcp.Server { return s.server }

// Notes says what the stand-in serves and how, for people: where the
// server facts and each list come from, what is derived or answered
// empty, what cannot be served.
func (s *Standin) Notes() []string { return s.notes }

// Report returns the report so far. Questions asked in input_required
// results whose answers never came back are a ProblemUnanswered. Its
// problems, those found as they happened and those found now (questions
// unanswered, tasks, calls missing), are at most MaxProblems; Dropped
// counts the rest.
func (s *Standin) Report() Report {
	r := s.rep.snapshot()
	r.add(s.waiting())
	if r.Ended && s.opts.EveryCall {
		// While it serves, the client may still make them.
		r.add(s.taskProblems())
		r.add(s.missing(r.Requests))
	}
	r.OK = r.OK && len(r.Problems) == 0 && r.Dropped == 0
	return r
}

// missing are the recorded calls the client has not made (each one the
// recording holds answered, as many times as it holds it: the Nth
// request of a method and params takes the Nth), in the recorded order;
// when the recording holds no call, and the client made none of its
// requests (requests answered from it), one problem that says so: a
// client that asked nothing checked nothing. They are problems of the
// report once the stand-in has ended.
func (s *Standin) missing(requests int) []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Problem
	calls := 0
	for _, xs := range s.script.callsByKey() {
		calls += len(xs)
		k := xs[0].Method + "\x00" + xs[0].Key
		made := s.served[k]
		for _, x := range xs[min(made, len(xs)):] {
			detail := "the client never made this call"
			if len(xs) > 1 {
				detail = fmt.Sprintf("the recording holds this call %d times; the client made it %d time(s)", len(xs), made)
			}
			out = append(out, Problem{Kind: ProblemMissing, Request: x.Label(), Line: x.Line, Detail: detail})
		}
	}
	slices.SortFunc(out, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	if calls == 0 && requests == 0 {
		detail := fmt.Sprintf("the client made none of the recording's %s: nothing was checked", plural(len(s.script.Exchanges), "request"))
		if len(s.script.Exchanges) == 0 {
			detail = "the recording holds no request of a client, and the client made none: nothing was checked"
		}
		out = append(out, Problem{Kind: ProblemMissing, Request: "requests", Detail: detail})
	}
	return out
}

// waiting are the questions asked and not answered so far: those a client
// of 2025-11-25 is being asked, the tasks' shown, the rounds of
// input_required results that never came back.
func (s *Standin) waiting() []Problem {
	waiting, pending := s.callsAsking()
	waiting = append(waiting, s.tasksAsking()...)
	slices.SortFunc(waiting, func(a, b Problem) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Request, b.Request)) })
	if pending > 0 {
		waiting = append(waiting, Problem{Kind: ProblemUnanswered, Request: "input_required",
			Detail: fmt.Sprintf("%d round(s) of questions asked in input_required results never came back answered (the client left mid-question?)", pending)})
	}
	return waiting
}

// callsAsking are the calls in progress that asked a client of 2025-11-25
// and wait for its answer, and the count of rounds asked in input_required
// results that never came back.
func (s *Standin) callsAsking() ([]Problem, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var waiting []Problem
	for t, lbl := range s.running {
		if t.asked && !t.final && !t.modern {
			line := 0
			if t.x != nil {
				line = t.x.Line
			}
			waiting = append(waiting, Problem{Kind: ProblemUnanswered, Request: lbl, Line: line,
				Detail: "the client was asked and had not answered (it left mid-question?)"})
		}
	}
	return waiting, s.asked - s.opened
}

// tasksAsking are the tasks of the tasks extension whose question the
// client was shown and has not answered.
func (s *Standin) tasksAsking() []Problem {
	var waiting []Problem
	for _, t := range s.tasks.all() {
		if tk, ok := t.(*extTask); ok {
			if key := tk.unanswered(); key != "" {
				waiting = append(waiting, Problem{Kind: ProblemUnanswered, Request: tk.x.Label(), Line: tk.x.Line, Key: key,
					Detail: "the client was shown the task's question and had not answered (it left mid-question?)"})
			}
		}
	}
	return waiting
}

// End marks the report complete: the stand-in serves no more.
// The questions still unanswered then are each a line on the log (the
// report lists them).
func (s *Standin) End() {
	for _, p := range s.waiting() {
		s.rep.say(p)
	}
	if s.opts.EveryCall {
		for _, p := range s.taskProblems() {
			s.rep.say(p)
		}
		for _, p := range s.missing(s.rep.snapshot().Requests) {
			s.rep.say(p)
		}
	}
	s.rep.update(func(r *Report) { r.Ended = true })
}

// WriteReport writes the report as one JSON document.
func (s *Standin) WriteReport(w io.Writer) error {
	b, err := json.MarshalIndent(s.Report(), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (s *Standin) note(format string, args ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// build makes the go-sdk server: identity, capabilities and instructions
// from the recording, the recorded features registered, and the
// middleware that matches and faults.
func (s *Standin) build() error {
	facts := s.script.Server
	impl, caps, err := facts.read()
	if err != nil {
		return err
	}
	s.offerExtensions(caps)
	s.offerTasksFor2025(caps)
	s.noteUndeclared(caps)
	if facts.Line > 0 {
		s.note("the server %q %s, its capabilities and instructions from line %d", impl.Name, impl.Version, facts.Line)
	} else {
		s.note("the recording holds no initialize or server/discover result: the server is named %q and its capabilities follow what it serves", impl.Name)
	}
	if len(s.script.Exchanges) == 0 {
		s.note("the recording holds no request of the client: its lists are empty and every call is answered as not recorded")
	}
	opts := &mcp.ServerOptions{Instructions: facts.Instructions, Capabilities: caps}
	if caps.Resources != nil && caps.Resources.Subscribe {
		opts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	s.server = mcp.NewServer(impl, opts)
	ask.EveryRound(s.server) // older clients are asked every recorded round
	if err := s.register(); err != nil {
		return err
	}
	if err := s.registerTasks(); err != nil {
		return err
	}
	s.server.AddReceivingMiddleware(s.middleware)
	return nil
}

// read is the server's identity and capabilities as the go-sdk's types:
// a stand-in's own name when the recording holds none.
func (f ServerFacts) read() (*mcp.Implementation, *mcp.ServerCapabilities, error) {
	impl := &mcp.Implementation{Name: "mcp-tester-serve"}
	if len(f.Info) > 0 {
		if err := json.Unmarshal(f.Info, impl); err != nil || impl.Name == "" {
			return nil, nil, &recording.Error{Line: f.Line, Err: fmt.Errorf("the server's serverInfo is not an implementation (name, version): %s", f.Info)}
		}
	}
	caps := &mcp.ServerCapabilities{}
	if len(f.Capabilities) > 0 {
		if err := json.Unmarshal(f.Capabilities, caps); err != nil {
			return nil, nil, &recording.Error{Line: f.Line, Err: fmt.Errorf("the server's capabilities: %v", err)}
		}
	}
	return impl, caps, nil
}

// offerExtensions leaves in caps the extensions the recorded server offered
// that a stand-in serves (the tasks extension), and notes the others.
func (s *Standin) offerExtensions(caps *mcp.ServerCapabilities) {
	var ids []string
	for id := range caps.Extensions {
		if id != tasks.ExtensionID {
			ids = append(ids, id)
			delete(caps.Extensions, id)
		}
	}
	if len(caps.Extensions) == 0 {
		caps.Extensions = nil
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		s.note("the recorded server offered the extension %s, which a stand-in does not serve: not offered", strings.Join(ids, ", "))
	}
}

// noteUndeclared notes each member of the recorded server's capabilities
// that the stand-in's initialize does not declare (caps, as the go-sdk's
// types hold them, and capabilities.tasks of 2025-11-25 when it runs the
// recording's tasks of that era): a client is declared less than the
// recorded server declared, and is told which. The extensions left out
// are offerExtensions' to say; a member false or null declares nothing.
func (s *Standin) noteUndeclared(caps *mcp.ServerCapabilities) {
	var recorded, served map[string]any
	if json.Unmarshal(s.script.Server.Capabilities, &recorded) != nil || recorded == nil {
		return
	}
	b, err := json.Marshal(caps)
	if err != nil || json.Unmarshal(b, &served) != nil {
		return
	}
	delete(recorded, "extensions")
	if s.script.hasTasks2025() {
		served["tasks"] = recorded["tasks"] // withTasks2025
	} else if _, ok := recorded["tasks"]; ok && declares(recorded["tasks"]) {
		delete(recorded, "tasks")
		s.note("the recorded server declared capabilities.tasks (tasks of protocol 2025-11-25), which the stand-in does not declare: the recording holds no call the server ran as such a task, so it runs none (a call of a tool that runs only as a task is answered as recorded)")
	}
	var left []string
	undeclared("capabilities", recorded, served, &left)
	if len(left) > 0 {
		s.note("the recorded server declared %s, which the stand-in does not declare: a stand-in does not serve it", strings.Join(left, ", "))
	}
}

// undeclared adds to left the path of each member of recorded (under
// path) that declares something and that served lacks, in key order.
func undeclared(path string, recorded, served map[string]any, left *[]string) {
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := recorded[k]
		if !declares(v) {
			continue
		}
		sv, ok := served[k]
		if !ok {
			*left = append(*left, path+"."+k)
			continue
		}
		rm, rok := v.(map[string]any)
		sm, sok := sv.(map[string]any)
		if rok && sok {
			undeclared(path+"."+k, rm, sm, left)
		}
	}
}

// declares reports whether a capability's value declares anything: not
// false, not null.
func declares(v any) bool {
	return v != nil && v != false
}

// offerTasksFor2025 offers in caps the tasks extension, when the recording
// holds tasks of 2025-11-25 only: a client of 2026-07-28 that asks for a
// task gets one, of the extension, as the recorded server gave a client of
// 2025-11-25 (see asExtTask). A client of 2025-11-25 is not offered it
// (answerAside).
func (s *Standin) offerTasksFor2025(caps *mcp.ServerCapabilities) {
	if !s.script.hasTasks2025() || caps.Extensions[tasks.ExtensionID] != nil {
		return
	}
	caps.AddExtension(tasks.ExtensionID, map[string]any{})
	s.extFor2025 = true
	s.note("the recorded server ran calls as tasks of protocol 2025-11-25: they run as such tasks for a client of 2025-11-25 that asks for one, and as tasks of the tasks extension (offered to clients of 2026-07-28) for a client of 2026-07-28 that declares it")
}

// errDropped ends a request whose connection a fault dropped.
var errDropped = errors.New("the connection was dropped by a fault")

// label names a request for people: its method and name.
func label(method, name string) string {
	if name == "" {
		return method
	}
	return method + " " + name
}

// nameOf returns the tool or prompt name or resource URI a request names.
func nameOf(req mcp.Request) string {
	name, _ := callParams(req)
	return name
}

// responsesOf returns the answers a request carries.
func responsesOf(req mcp.Request) mcp.InputResponseMap {
	_, responses := callParams(req)
	return responses
}

// callParams returns what a tools/call, prompts/get or resources/read
// request names and the answers it carries.
func callParams(req mcp.Request) (string, mcp.InputResponseMap) {
	if req == nil {
		return "", nil
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		if p != nil {
			return p.Name, p.InputResponses
		}
	case *mcp.GetPromptParams:
		if p != nil {
			return p.Name, p.InputResponses
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			return p.URI, p.InputResponses
		}
	}
	return "", nil
}

// rpcError is a JSON-RPC error with data.
func rpcError(code int64, data any, format string, args ...any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}
