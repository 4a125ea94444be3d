package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/recording"
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
	b := &builder{
		s: &Script{Header: rec.Header, Truncated: rec.Truncated, byKey: map[string][]*Exchange{}, byMethod: map[string][]*Exchange{}},
	}
	if err := recording.Walk(rec, b); err != nil {
		return nil, err
	}
	b.finish()
	return b.s, nil
}

// Read is Build of the recording rd reads, as it reads it: the recording
// is not held besides the script (mcp-tester serve of a large one). It
// reads at most maxEntries entries (1,000,000 when 0).
func Read(rd *recording.Reader, maxEntries int) (*Script, error) {
	b := &builder{
		s: &Script{Header: rd.Header(), byKey: map[string][]*Exchange{}, byMethod: map[string][]*Exchange{}},
	}
	if err := recording.WalkReader(rd, b, maxEntries); err != nil {
		return nil, err
	}
	b.s.Truncated = rd.Truncated()
	b.finish()
	return b.s, nil
}

// pending is a client request waiting for its response.
type pending struct {
	line   int
	method string
	stream string
	proto  string    // the protocol version it was sent in
	x      *Exchange // nil for initialize and server/discover
}

type builder struct {
	s    *Script
	reqs recording.Waiting[*pending]
	// sreqs are the server requests waiting for the client's answer; nil:
	// one not served (ping).
	sreqs recording.Waiting[*Question]
	// rounds are the exchanges whose last round waits for the answers of
	// a next request, paired by the rule a conversation (script) pairs
	// its rounds with too.
	rounds recording.Rounds[*Exchange]
	gone   string
	// tasks are the calls the server ran as tasks of 2025-11-25, by the
	// task's id (tasks2025.go).
	tasks map[string]*Exchange
}

func (b *builder) warn(line int, format string, args ...any) {
	b.s.Warnings = append(b.s.Warnings, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, args...)))
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
	case recording.EventNotJSON:
		b.warn(line, "a frame that was not JSON-RPC (%s): skipped", e.Note)
	}
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

// ClientRequest files a request of the client as an exchange to serve,
// or as the next round of the exchange it continues.
func (b *builder) ClientRequest(w recording.Message, m *jsonrpc.Request) error {
	line, session, stream := w.Line, w.Session, w.Stream
	p := recording.ReadParams(m.Params)
	proto := p.MetaProtocol()
	if e := w.Entry; proto == "" && e.HTTP != nil && e.HTTP.ProtocolVersion >= "2026-07-28" {
		proto = e.HTTP.ProtocolVersion
	}
	if m.Method != "server/discover" {
		b.protocol(line, proto) // a probe's counts when the server answers it
	}
	if !m.ID.IsValid() {
		b.clientNotification(line, session, m, p)
		return nil
	}
	pend := &pending{line: line, method: m.Method, stream: stream, proto: proto}
	for _, earlier := range b.reqs.Get(session, m.ID) {
		if earlier.stream == stream {
			b.warn(line, "the request id %s is already the id of the request at line %d, which has no answer yet: an answer with this id is taken as the earlier one's", idText(m.ID), earlier.line)
			break
		}
	}
	b.reqs.Add(session, stream, m.ID, pend)
	switch m.Method {
	case "initialize", "server/discover":
		return nil
	case "notifications/initialized":
		return nil
	}
	if b.taskRequest(pend, m.Method, p) {
		return nil
	}
	key, err := matchKey(m.Method, m.Params)
	if err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the params of %s cannot be matched: %w", m.Method, err)}
	}
	name := p.Name
	if m.Method == "resources/read" {
		name = p.URI
	}
	if isCall(m.Method) && (len(p.InputResponses) > 0 || p.RequestState != nil) {
		if x, ok := b.rounds.Continue(m.Method, name, session, p); ok {
			b.answerRound(line, x, p.InputResponses)
			x.RoundLines = append(x.RoundLines, line)
			pend.x = x
			return nil
		}
		b.warn(line, "%s %s carries answers to a round the recording does not hold: served as a request of its own", m.Method, name)
	}
	x := &Exchange{Index: len(b.s.Exchanges), Line: line, RoundLines: []int{line}, Method: m.Method, Name: name, Params: m.Params, Key: key,
		session: session}
	if !isCall(m.Method) && m.Method != "tools/list" && m.Method != "prompts/list" && m.Method != "resources/list" &&
		m.Method != "resources/templates/list" {
		x.Name = ""
	}
	b.s.Exchanges = append(b.s.Exchanges, x)
	b.s.file(x)
	pend.x = x
	return nil
}

func (b *builder) answerRound(line int, x *Exchange, answers map[string]json.RawMessage) {
	last := x.Rounds[len(x.Rounds)-1]
	for _, q := range last.Questions {
		if a, ok := answers[q.Key]; ok && q.Answer == nil {
			q.Answer, q.AnswerLine = a, line
		}
	}
}

func (b *builder) clientNotification(line int, session string, m *jsonrpc.Request, p recording.Params) {
	if m.Method != "notifications/cancelled" {
		return
	}
	id, ok := recording.CancelledID(p.RequestID)
	if !ok {
		return
	}
	for _, pend := range b.reqs.Get(session, id) {
		if pend.x != nil && !pend.x.Ended {
			pend.x.Unended = fmt.Sprintf("the client cancelled it (line %d)", line)
		}
	}
}

// ServerRequest files a question under the call it belongs to.
func (b *builder) ServerRequest(w recording.Message, m *jsonrpc.Request) error {
	line, session := w.Line, w.Session
	if !m.ID.IsValid() {
		return nil // a notification: progress, a log message, a list change
	}
	switch m.Method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
	default:
		b.sreqs.Add(session, "", m.ID, nil)
		return nil
	}
	x, others := b.callOf(session, w.Stream)
	if others > 0 {
		b.warn(line, "%s came while %d other call(s) were in progress, and nothing says which one asked it: taken as %s's (line %d), the earliest", m.Method, others, x.Label(), x.Line)
	}
	if x == nil {
		b.warn(line, "%s outside any call: not asked", m.Method)
		b.sreqs.Add(session, "", m.ID, nil)
		return nil
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
	b.sreqs.Add(session, "", m.ID, q)
	return nil
}

// callOf finds the call in progress that a server request belongs to,
// by the rule a conversation (script) takes it by too (see
// recording.Waiting.Asker), with the number of other calls in progress it
// might as well belong to.
func (b *builder) callOf(session, stream string) (*Exchange, int) {
	p, others, ok := b.reqs.Asker(session, stream, (*pending).asks)
	if !ok {
		return nil, 0
	}
	return p.x, others
}

// ClientResponse takes the client's answer to a server request.
func (b *builder) ClientResponse(w recording.Message, m *jsonrpc.Response) error {
	q, ok := b.sreqs.Take(w.Session, "", m.ID)
	if !ok {
		b.warn(w.Line, "an answer to a server request the recording does not hold: skipped")
		return nil
	}
	if q == nil {
		return nil
	}
	q.AnswerLine = w.Line
	if m.Error != nil {
		q.AnswerErr = recording.WireError(m.Error)
		return nil
	}
	q.Answer = m.Result
	return nil
}

// resultHead reads what a builder needs of a result.
type resultHead struct {
	Meta          map[string]json.RawMessage `json:"_meta"`
	ResultType    string                     `json:"resultType"`
	Task          json.RawMessage            `json:"task"` // a task of protocol 2025-11-25
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *string                    `json:"requestState"`
	// initialize and server/discover
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Capabilities    json.RawMessage `json:"capabilities"`
	Instructions    string          `json:"instructions"`
	ProtocolVersion string          `json:"protocolVersion"`
}

// ServerResponse takes the server's answer to a request of the client:
// a round of questions, or the result that ends its exchange.
func (b *builder) ServerResponse(w recording.Message, m *jsonrpc.Response) error {
	line := w.Line
	p, ok := b.reqs.Take(w.Session, w.Stream, m.ID)
	if !ok {
		b.warn(line, "a response to a request the recording does not hold: skipped")
		return nil
	}
	var h resultHead
	if m.Error == nil {
		if err := json.Unmarshal(m.Result, &h); err != nil {
			return &recording.Error{Line: line, Err: fmt.Errorf("the result of %s (line %d) is not a JSON object: %v", p.method, p.line, err)}
		}
		if info := h.Meta[metaServerInfo]; len(info) > 0 && len(b.s.Server.Info) == 0 {
			b.s.Server.Info = info
			b.s.Server.Line = line
		}
	}
	switch p.method {
	case "initialize", "server/discover":
		if m.Error == nil {
			if p.method == "server/discover" {
				b.protocol(p.line, p.proto)
			}
			b.protocol(line, h.ProtocolVersion)
			if len(h.ServerInfo) > 0 {
				b.s.Server.Info = h.ServerInfo
			}
			b.s.Server.Capabilities = h.Capabilities
			b.s.Server.Instructions = h.Instructions
			b.s.Server.Line = line
		}
		return nil
	}
	x := p.x
	if x == nil {
		return nil
	}
	b.rounds.Forget(x) // a result or an error ends it, or asks a round of its own
	if m.Error != nil {
		x.Err, x.ResultLine, x.Ended = recording.WireError(m.Error), line, true
		return nil
	}
	if isCall(x.Method) && (h.ResultType == "input_required" || h.InputRequests != nil) {
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
		b.rounds.Wait(x, recording.Round{Method: x.Method, Name: x.Name, Session: x.session, Args: args, Keys: keys, State: h.RequestState})
		return nil
	}
	if h.ResultType == "" && len(h.Task) > 0 && string(h.Task) != "null" && p.method != "tasks/result" {
		b.taskCreated(line, x, h.Task) // a task of protocol 2025-11-25
		return nil
	}
	if h.ResultType == "task" {
		x.Unended = fmt.Sprintf("the server ran it as a task (line %d), which a stand-in does not serve", line)
		b.warn(line, "%s ran as a task (tasks extension): a stand-in does not serve tasks; the call is answered with an error", x.Label())
		return nil
	}
	res, err := finalResult(x.Method, m.Result)
	if err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the result of %s (line %d): %w", x.Label(), x.Line, err)}
	}
	x.Result, x.ResultLine, x.Ended = res, line, true
	return nil
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
	for _, x := range b.s.Exchanges {
		for _, r := range x.Rounds {
			for _, q := range r.Questions {
				if q.Answer == nil && q.AnswerErr == nil {
					b.warn(q.Line, "question %q of %s was never answered: an answer to it is not checked", q.Key, x.Label())
				}
			}
		}
	}
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
	if len(b.s.Server.Capabilities) == 0 || bytes.Equal(b.s.Server.Capabilities, []byte("null")) {
		b.s.Server.Capabilities = nil
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
