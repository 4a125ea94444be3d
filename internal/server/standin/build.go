package standin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaServerInfo is the key of a 2026-07-28 result's _meta that names
// the server.
const metaServerInfo = "io.modelcontextprotocol/serverInfo"

// Build reads a recording as a script to serve. Requests are paired with
// their responses by id within their HTTP session (and by stream when ids
// repeat), questions with the call they belong to (the call whose stream
// carried them, over stdio the call in progress), 2026-07-28 rounds with
// the next request carrying their answers. What cannot be served as
// recorded is a warning; params or results the stand-in could not serve
// at all are a *recording.Error naming the line.
func Build(rec *recording.Recording) (*Script, error) {
	b := newBuilder(&Script{Header: rec.Header, Truncated: rec.Truncated})
	if err := recording.Walk(rec, b.calls); err != nil {
		return nil, err
	}
	b.finish()
	return b.s, nil
}

// Read is Build of the recording rd reads, as it reads it: the recording
// is not held besides the script (mcp-tester serve of a large one). It
// reads at most maxEntries entries (1,000,000 when 0).
func Read(rd *recording.Reader, maxEntries int) (*Script, error) {
	b := newBuilder(&Script{Header: rd.Header()})
	if err := recording.WalkReader(rd, b.calls, maxEntries); err != nil {
		return nil, err
	}
	b.s.Truncated = rd.Truncated()
	b.finish()
	return b.s, nil
}

// pending is what a builder keeps of a client request waiting for its
// response: the protocol version it was sent in. Its exchange (nil for
// initialize and server/discover) is the recording.Pending's Call.
type pending struct {
	proto string
	// task is the call whose task of the tasks extension the request is
	// about (tasks/get, tasks/update, tasks/cancel).
	task *Exchange
	// shows2025: the request's result shows recorded tasks of 2025-11-25
	// (tasks/get, tasks/list, tasks/cancel), their status messages kept.
	shows2025 bool
	// caps are what the client of an initialize declared (capsOf).
	caps []string
}

// request is a client request waiting for its response.
type request = recording.Pending[*Exchange, pending]

type builder struct {
	s *Script
	// calls pairs requests, rounds, questions and answers, by the rule a
	// conversation (script) pairs them with too; the builder is its
	// hooks. A question kept nil is one not served (ping).
	calls *recording.CallReader[*Exchange, pending, *Question]
	gone  string
	// tasks are the calls the server ran as tasks of 2025-11-25, by the
	// task's id (tasks2025.go).
	tasks map[string]*Exchange
	// skips are the frames that are no JSON-RPC and the notifications
	// not served, each kind warned of once, at its first line (skip).
	skips recording.Skips
	// caps are what the client of each session declared at its
	// initialize (capsOf), by session ("" over stdio).
	caps map[string][]string
}

func newBuilder(s *Script) *builder {
	s.byKey, s.byMethod = map[string][]*Exchange{}, map[string][]*Exchange{}
	b := &builder{s: s}
	b.calls = recording.NewCallReader(b)
	return b
}

func (b *builder) warn(line int, format string, args ...any) {
	b.s.Warnings = append(b.s.Warnings, &recording.Error{Line: line, Err: fmt.Errorf(format, args...)})
}

// Event notes where the client or the server went, and what is not served.
func (b *builder) Event(line int, e recording.Entry) {
	switch e.Event {
	case recording.EventClientGone:
		if b.gone == "" {
			b.gone = fmt.Sprintf("the client left (line %d)", line)
		}
	case recording.EventServerGone:
		if b.gone == "" {
			b.gone = fmt.Sprintf("the server went away (line %d)", line)
		}
	case recording.EventLimit:
		b.warn(line, "the recording stopped at its size limit: what came after it is not served")
	case recording.EventNotJSON, recording.EventNotRPC:
		b.skip(recording.FrameKind(e), line, recording.FrameWhat(e), "skipped")
	}
}

// Notification warns of the server's notifications, which are not
// replayed: once for each method, with how many there were.
func (b *builder) Notification(w recording.Message, m *jsonrpc.Request) {
	b.skip("notification "+m.Method, w.Line, fmt.Sprintf("the server's %s, which the stand-in does not replay", m.Method), "")
}

// skip warns of one of kind, left out: one warning of each kind, at the
// first's line, rewritten with how many there were as more come.
func (b *builder) skip(kind string, line int, what, done string) {
	sk := b.skips.Add(kind, line, what)
	if sk.N > 1 {
		b.s.Warnings[sk.At] = &recording.Error{Line: sk.First, Err: errors.New(sk.Text(done))}
		return
	}
	sk.At = len(b.s.Warnings)
	b.warn(line, "%s", sk.Text(done))
}

func (b *builder) protocol(line int, v string) {
	if v == "" || slices.Contains(b.s.Protocols, v) {
		return
	}
	b.s.Protocols = append(b.s.Protocols, v)
	if !slices.Contains(mcp.SupportedProtocolVersions(), v) {
		b.warn(line, "protocol version %q, which this mcp-tester does not speak (it speaks %s): served as its messages allow, to clients of the versions it speaks",
			v, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
}

// protocol is the protocol version a request was sent in, when the
// recording says (over HTTP, a 2026-07-28 header).
func protocol(w recording.Message, p recording.Params) string {
	proto := p.MetaProtocol()
	if e := w.Entry; proto == "" && e.HTTP != nil && e.HTTP.ProtocolVersion >= "2026-07-28" {
		proto = e.HTTP.ProtocolVersion
	}
	return proto
}

// Request notes a request's protocol version, and an id that repeats one
// still waiting for its answer.
func (b *builder) Request(w recording.Message, m *jsonrpc.Request, p recording.Params) error {
	if m.Method != "server/discover" {
		b.protocol(w.Line, protocol(w, p)) // a probe's counts when the server answers it
	}
	if !m.ID.IsValid() {
		return nil
	}
	for _, earlier := range b.calls.Waiting(w.Session, m.ID) {
		if earlier.Stream == w.Stream {
			b.warn(w.Line, "the request id %s is already the id of the request at line %d, which has no answer yet: an answer with this id is taken as the earlier one's", idText(m.ID), earlier.Line)
			break
		}
	}
	return nil
}

// Call files a call's first request as an exchange to serve.
func (b *builder) Call(w recording.Message, m *jsonrpc.Request, name string, p recording.Params, orphan bool) (*Exchange, pending, error) {
	if orphan {
		b.warn(w.Line, "%s %s carries answers to a round the recording does not hold: served as a request of its own", m.Method, name)
	}
	x, err := b.exchange(w, m, name)
	return x, pending{proto: protocol(w, p)}, err
}

// Round files a request as the next round of the exchange it continues.
func (b *builder) Round(w recording.Message, m *jsonrpc.Request, x *Exchange, p recording.Params) (pending, error) {
	pend := pending{proto: protocol(w, p)}
	if _, err := matchKey(m.Method, m.Params); err != nil {
		return pend, roundKeyError(w.Line, x.Method, err)
	}
	b.answerRound(w.Line, x, p.InputResponses)
	x.RoundLines = append(x.RoundLines, w.Line)
	return pend, nil
}

// Other files a request of the client that is no call as an exchange to
// serve (a list, a completion, …); none for initialize and
// server/discover.
func (b *builder) Other(w recording.Message, m *jsonrpc.Request, p recording.Params) (*Exchange, pending, error) {
	pend := pending{proto: protocol(w, p)}
	switch m.Method {
	case "initialize":
		pend.caps = initializeCaps(m.Params)
		return nil, pend, nil
	case "server/discover":
		return nil, pend, nil
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		x, err := b.exchange(w, m, p.Name)
		if x != nil {
			x.clientCaps = b.recordedClientCaps(w, p)
		}
		return x, pend, err
	}
	if x, took := b.extTaskRequest(w.Line, m.Method, p); took {
		pend.task = x
		return nil, pend, nil
	}
	if x, took := b.taskRequest(m.Method, p); took {
		pend.shows2025 = m.Method != "tasks/result"
		return x, pend, nil
	}
	x, err := b.exchange(w, m, "")
	return x, pend, err
}

func roundKeyError(line int, method string, err error) error {
	return &recording.Error{Line: line, Err: fmt.Errorf("the params of %s cannot be matched: %w", method, err)}
}

// exchange files a request as an exchange of its own.
func (b *builder) exchange(w recording.Message, m *jsonrpc.Request, name string) (*Exchange, error) {
	key, err := matchKey(m.Method, m.Params)
	if err != nil {
		return nil, roundKeyError(w.Line, m.Method, err)
	}
	x := &Exchange{Index: len(b.s.Exchanges), Line: w.Line, RoundLines: []int{w.Line}, Method: m.Method, Name: name, Params: m.Params, Key: key,
		session: w.Session}
	b.s.Exchanges = append(b.s.Exchanges, x)
	b.s.file(x)
	return x, nil
}

func (b *builder) answerRound(line int, x *Exchange, answers map[string]json.RawMessage) {
	last := x.Rounds[len(x.Rounds)-1]
	for _, q := range last.Questions {
		if a, ok := answers[q.Key]; ok && q.Answer == nil {
			q.Answer, q.AnswerLine = a, line
		}
	}
}

// Cancelled notes an exchange the client cancelled.
func (b *builder) Cancelled(line int, req *request) {
	if x := req.Call; x != nil && !x.Ended {
		x.Unended = fmt.Sprintf("the client cancelled it (line %d)", line)
	}
}

// Question files a question under the call it was asked during.
func (b *builder) Question(w recording.Message, m *jsonrpc.Request, asker recording.Asker[*Exchange]) (*Question, error) {
	line, x := w.Line, asker.Call
	if !asker.Found || x == nil {
		b.warn(line, "%s outside any call: not asked", m.Method)
		return nil, nil
	}
	if asker.Others > 0 {
		b.warn(line, "%s came while %d other call(s) were in progress, and nothing says which one asked it: taken as %s's (line %d), the earliest", m.Method, asker.Others, x.Label(), x.Line)
	}
	var r *Round
	if n := len(x.Rounds); n > 0 && x.Rounds[n-1].serverRequests {
		// Asked while an earlier question of the round waits: the same
		// round (a server asks the questions of a round at once).
		for _, q := range x.Rounds[n-1].Questions {
			if q.Answer == nil && q.AnswerErr == nil {
				r = x.Rounds[n-1]
				break
			}
		}
	}
	if r == nil {
		r = &Round{serverRequests: true}
		x.Rounds = append(x.Rounds, r)
	}
	q := &Question{Line: line, Key: "q" + strconv.Itoa(x.Questions()+1), Method: m.Method, Params: m.Params}
	r.Questions = append(r.Questions, q)
	return q, nil
}

// Answer takes the client's answer to a server request.
func (b *builder) Answer(w recording.Message, q *Question, found bool, m *jsonrpc.Response) {
	if !found {
		b.warn(w.Line, "an answer to a server request the recording does not hold: skipped")
		return
	}
	if q == nil {
		return
	}
	q.AnswerLine = w.Line
	if m.Error != nil {
		q.AnswerErr = recording.WireError(m.Error)
		return
	}
	q.Answer = m.Result
}

// resultHead reads what a builder needs of a result.
type resultHead struct {
	Meta          map[string]json.RawMessage `json:"_meta"`
	ResultType    string                     `json:"resultType"`
	Task          json.RawMessage            `json:"task"` // a task of protocol 2025-11-25
	TaskID        string                     `json:"taskId"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *string                    `json:"requestState"`
	// initialize and server/discover
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Capabilities    json.RawMessage `json:"capabilities"`
	Instructions    string          `json:"instructions"`
	ProtocolVersion string          `json:"protocolVersion"`
}

// Response takes the server's answer to a request of the client: what
// the server said of itself, a round of questions, a task, or the result
// that ends its exchange.
func (b *builder) Response(w recording.Message, p *request, m *jsonrpc.Response) error {
	line := w.Line
	if p == nil {
		b.warn(line, "a response to a request the recording does not hold: skipped")
		return nil
	}
	h, err := b.head(line, p, m)
	if err != nil {
		return err
	}
	switch {
	case p.Method == "initialize" || p.Method == "server/discover":
		if p.Method == "initialize" {
			// The session is the answer's (over HTTP the request has none yet).
			if b.caps == nil {
				b.caps = map[string][]string{}
			}
			b.caps[w.Session] = p.Data.caps
		}
		b.serverFacts(line, p, m, h)
		return nil
	case p.Data.task != nil:
		return b.extTaskAnswered(line, p, p.Data.task, m)
	case p.Data.shows2025:
		if m.Error == nil {
			b.taskShown(line, m.Result)
		}
		return nil
	case p.Call == nil:
		return nil
	}
	return b.callAnswered(line, p, m, h)
}

// head reads what a builder needs of a result (none of an error), and
// takes the server's name from its _meta when nothing named it before.
func (b *builder) head(line int, p *request, m *jsonrpc.Response) (resultHead, error) {
	var h resultHead
	if m.Error != nil {
		return h, nil
	}
	if err := json.Unmarshal(m.Result, &h); err != nil {
		return h, &recording.Error{Line: line, Err: fmt.Errorf("the result of %s (line %d) is not a JSON object: %v", p.Method, p.Line, err)}
	}
	if info := h.Meta[metaServerInfo]; len(info) > 0 && len(b.s.Server.Info) == 0 {
		b.s.Server.Info = info
		b.s.Server.Line = line
	}
	return h, nil
}

// serverFacts takes what initialize or server/discover answered: the
// protocol version, the server's name, capabilities and instructions.
func (b *builder) serverFacts(line int, p *request, m *jsonrpc.Response, h resultHead) {
	if m.Error != nil {
		return
	}
	if p.Method == "server/discover" {
		b.protocol(p.Line, p.Data.proto)
	}
	b.protocol(line, h.ProtocolVersion)
	if len(h.ServerInfo) > 0 {
		b.s.Server.Info = h.ServerInfo
	}
	b.s.Server.Capabilities = h.Capabilities
	b.s.Server.Instructions = h.Instructions
	b.s.Server.Line = line
}

// callAnswered takes the server's answer to a request of an exchange: its
// error, a round of questions, a task it runs as (of either era), or its
// result.
func (b *builder) callAnswered(line int, p *request, m *jsonrpc.Response, h resultHead) error {
	x := p.Call
	switch {
	case m.Error != nil:
		x.Err, x.ResultLine, x.Ended = recording.WireError(m.Error), line, true
		return nil
	case isCall(x.Method) && (h.ResultType == "input_required" || h.InputRequests != nil):
		return b.roundAsked(line, x, h)
	case h.startsTask2025(p.Method):
		b.taskCreated(line, x, h.Task) // a task of protocol 2025-11-25
		return nil
	case h.ResultType == tasks.ResultTypeTask:
		b.extTaskCreated(line, x, h, m.Result)
		return nil
	}
	res, err := finalResult(x.Method, m.Result)
	if err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the result of %s (line %d): %w", x.Label(), x.Line, err)}
	}
	x.Result, x.ResultLine, x.Ended = res, line, true
	return nil
}

// roundAsked files the questions of an input_required result as the next
// round of x, which waits for the request that answers them.
func (b *builder) roundAsked(line int, x *Exchange, h resultHead) error {
	r, err := inputRound(line, h.InputRequests)
	if err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the questions of %s (line %d): %w", x.Label(), x.Line, err)}
	}
	x.Rounds = append(x.Rounds, r)
	keys := make([]string, len(r.Questions))
	for i, q := range r.Questions {
		keys[i] = q.Key
	}
	args := recording.ReadParams(x.Params).Arguments // kept while it waits only
	b.calls.Wait(x, recording.Round{Method: x.Method, Name: x.Name, Session: x.session, Args: args, Keys: keys, State: h.RequestState})
	return nil
}

// startsTask2025 reports whether the result of a request of method says
// the call runs as a task of protocol 2025-11-25 (a task, no resultType;
// tasks/result gives the task's own result).
func (h resultHead) startsTask2025(method string) bool {
	return h.ResultType == "" && len(h.Task) > 0 && string(h.Task) != "null" && method != "tasks/result"
}

// taskID is the id of the task a result says the call runs as.
func (h resultHead) taskID() string {
	if h.TaskID != "" {
		return h.TaskID
	}
	var t struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(h.Task, &t)
	return t.TaskID
}

// inputRound reads the questions of an input_required result, in the
// order of their keys.
func inputRound(line int, reqs map[string]json.RawMessage) (*Round, error) {
	irs, err := recording.InputRequests(reqs)
	if err != nil {
		return nil, err
	}
	r := &Round{}
	for _, q := range irs {
		switch q.Method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return nil, fmt.Errorf("question %q asks %q, which is no question a client answers (elicitation/create, sampling/createMessage, roots/list)", q.Key, q.Method)
		}
		r.Questions = append(r.Questions, &Question{Line: line, Key: q.Key, Method: q.Method, Params: q.Params})
	}
	return r, nil
}

// finalResult is a result as the stand-in serves it: without the members
// the go-sdk writes for the client's era (resultType, the serverInfo of
// _meta), checked to decode as the method's result.
func finalResult(method string, raw json.RawMessage) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, err
	}
	delete(members, "resultType")
	if meta, ok := members["_meta"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(meta, &m) == nil {
			delete(m, metaServerInfo)
			delete(m, metaRelatedTask) // a task's result served as its call's
			if len(m) == 0 {
				delete(members, "_meta")
			} else {
				members["_meta"], _ = json.Marshal(m)
			}
		}
	}
	out, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	if _, err := decodeResult(method, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *builder) finish() {
	b.finishTasks()
	b.warnUnanswered()
	b.sayWhyUnended()
	if len(b.s.Server.Capabilities) == 0 || bytes.Equal(b.s.Server.Capabilities, []byte("null")) {
		b.s.Server.Capabilities = nil
	}
}

// warnUnanswered warns of each question the recording holds no answer to.
func (b *builder) warnUnanswered() {
	for _, x := range b.s.Exchanges {
		for _, q := range x.questions() {
			if q.Answer == nil && q.AnswerErr == nil {
				b.warn(q.Line, "question %q of %s was never answered: an answer to it is not checked", q.Key, x.Label())
			}
		}
	}
}

// sayWhyUnended says of each exchange that did not end, and says nothing
// of why, why the recording holds no answer to it.
func (b *builder) sayWhyUnended() {
	for _, x := range b.s.Exchanges {
		if x.Ended || x.Unended != "" {
			continue
		}
		switch {
		case b.gone != "":
			x.Unended = b.gone + ", before the server answered"
		case b.s.Truncated:
			x.Unended = "the recording is cut short before the server answered"
		default:
			x.Unended = "the recording ends before the server answered"
		}
	}
}

// idText is a JSON-RPC id as the recording writes it.
func idText(id jsonrpc.ID) string {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return fmt.Sprint(id.Raw())
	}
	return string(b)
}
