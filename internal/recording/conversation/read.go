package conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure Read.
type Options struct {
	// Lists takes the client's list requests (tools/list, prompts/list,
	// resources/list, resources/templates/list) as calls; otherwise they
	// are only counted.
	Lists bool
}

// Read reads rec as a conversation. A recording in a protocol version this
// tester does not speak is a *recording.Error naming the line.
func Read(rec *recording.Recording, opts Options) (*Conversation, error) {
	b := &builder{
		conv: &Conversation{Header: rec.Header, Truncated: rec.Truncated},
		opts: opts,
	}
	b.calls = recording.NewCallReader(b)
	if err := recording.Walk(rec, b.calls); err != nil {
		return nil, err
	}
	b.finish()
	return b.conv, nil
}

// pending is what a conversation keeps of a client request waiting for
// its response (the call it is a round of, or reads the task of, is the
// recording.Pending's).
type pending struct {
	kind  int
	proto string // the protocol version it was sent in
}

// request is a client request waiting for its response.
type request = recording.Pending[*Call, *pending]

// Kinds of pending requests.
const (
	kindOther = iota
	kindRound
	kindTaskGet
	kindTaskUpdate
	kindTaskCancel
	kindTaskResult
	kindInitialize
	kindList
)

type builder struct {
	conv *Conversation
	opts Options
	// calls pairs requests, rounds, questions and answers, by the rule the
	// stand-in pairs them with too; the builder is its hooks.
	calls *recording.CallReader[*Call, *pending, *Question]
	// gone is the line where the client or the server went, 0 while both
	// are there; goneWhy says which.
	gone    int
	goneWhy string
	// skips are the frames that are no JSON-RPC, each kind noted once.
	skips recording.Skips
}

func (b *builder) note(line int, c *Call, format string, args ...any) {
	b.conv.Notes = append(b.conv.Notes, Note{Line: line, Call: c, Text: fmt.Sprintf(format, args...)})
}

// Event notes where the client or the server went, and a recording cut at its size limit.
func (b *builder) Event(line int, e recording.Entry) {
	switch e.Event {
	case recording.EventClientGone:
		if b.gone == 0 {
			b.gone, b.goneWhy = line, "the client left"
		}
	case recording.EventServerGone:
		if b.gone == 0 {
			b.gone, b.goneWhy = line, "the server went away"
		}
	case recording.EventLimit:
		b.note(line, nil, "the recording stopped at its size limit (%s): what came after it is not in the script", strings.TrimSpace(e.Note))
	case recording.EventNotJSON, recording.EventNotRPC:
		// Skipped as the stand-in skips it, with the same warning: once
		// for each kind, at the first one's line, with how many there were.
		sk := b.skips.Add(recording.FrameKind(e), line, recording.FrameWhat(e))
		if sk.N == 1 {
			sk.At = len(b.conv.Notes)
			b.note(line, nil, "%s", sk.Text("skipped"))
			return
		}
		b.conv.Notes[sk.At].Text = sk.Text("skipped")
	}
}

// Notification hears a notification of the server: a script replays the
// client's side, and checks nothing of the server's progress or logs.
func (b *builder) Notification(recording.Message, *jsonrpc.Request) {}

// checkProtocol refuses a protocol version this tester does not speak.
func (b *builder) checkProtocol(line int, v string) error {
	if v == "" {
		return nil
	}
	if !slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return &recording.Error{Line: line, Err: fmt.Errorf("the conversation is in protocol version %q, which this mcp-tester does not speak (it speaks %s): a script of it could not be replayed",
			v, strings.Join(mcp.SupportedProtocolVersions(), ", "))}
	}
	if !slices.Contains(b.conv.Protocols, v) {
		b.conv.Protocols = append(b.conv.Protocols, v)
	}
	return nil
}

// protocol is the protocol version a request was sent in, when the
// recording says.
func protocol(w recording.Message, p recording.Params) string {
	proto := p.MetaProtocol()
	if proto == "" && w.Entry.HTTP != nil {
		proto = w.Entry.HTTP.ProtocolVersion
	}
	return proto
}

// Request refuses a request in a protocol version the tester does not
// speak.
func (b *builder) Request(w recording.Message, m *jsonrpc.Request, p recording.Params) error {
	if m.Method == "server/discover" {
		return nil // a probe's version counts when the server answers it (Response)
	}
	return b.checkProtocol(w.Line, protocol(w, p))
}

// Call takes a call's first request.
func (b *builder) Call(w recording.Message, m *jsonrpc.Request, name string, p recording.Params, orphan bool) (*Call, *pending, error) {
	c := &Call{Line: w.Line, Method: m.Method, Name: name, Args: p.Arguments, Session: w.Session, Protocol: protocol(w, p)}
	b.conv.Calls = append(b.conv.Calls, c)
	if orphan {
		b.note(w.Line, c, "%s %s carries answers to a question the recording does not hold (it began after the question was asked?): the script calls it afresh", m.Method, name)
	}
	return c, b.round(w, c, p), nil
}

// Round takes a call's next round: its answers to the round before.
func (b *builder) Round(w recording.Message, _ *jsonrpc.Request, c *Call, p recording.Params) (*pending, error) {
	b.answerRound(w.Line, c, p.InputResponses)
	return b.round(w, c, p), nil
}

func (b *builder) round(w recording.Message, c *Call, p recording.Params) *pending {
	c.Rounds++
	c.RoundLines = append(c.RoundLines, w.Line)
	// How the call ends is its last request's answer: what an earlier one
	// answered (the URL error -32042 a retry follows) is no end of it.
	c.urlWait = false
	c.Result, c.Err, c.ResultLine = nil, nil, 0
	return &pending{kind: kindRound, proto: protocol(w, p)}
}

// Other takes a request of the client that is no call: a task's request,
// a list, a level, or a note of what a script cannot send.
func (b *builder) Other(w recording.Message, m *jsonrpc.Request, p recording.Params) (*Call, *pending, error) {
	line, session := w.Line, w.Session
	pend := &pending{proto: protocol(w, p)}
	switch m.Method {
	case "initialize":
		pend.kind = kindInitialize
		return nil, pend, b.checkProtocol(line, p.Protocol)
	case "tasks/get", "tasks/update", "tasks/cancel":
		return b.taskRequest(line, m.Method, p, pend), pend, nil
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return b.list(line, session, m.Method, p, pend), pend, nil
	case MethodSetLevel:
		c := &Call{Line: line, Method: m.Method, Name: p.Level, Session: session, Protocol: pend.proto, Rounds: 1, RoundLines: []int{line}}
		b.conv.Calls = append(b.conv.Calls, c)
		return c, pend, nil
	case "tasks/result":
		// Protocol 2025-11-25: the result of a task a call started.
		if c, ok := b.calls.Task(p.TaskID); ok {
			pend.kind = kindTaskResult
			return c, pend, nil
		}
	case "ping", "server/discover", "tasks/list":
		// Session machinery: the tester does its own.
	default:
		b.note(line, nil, "the client sent %s, which a script cannot send: left out", m.Method)
	}
	return nil, pend, nil
}

// taskRequest takes a request about a task (tasks/get, tasks/update,
// tasks/cancel) and returns the call that started the task.
func (b *builder) taskRequest(line int, method string, p recording.Params, pend *pending) *Call {
	c, ok := b.calls.Task(p.TaskID)
	if !ok {
		b.note(line, nil, "%s for task %q, which no call of the recording started: left out", method, p.TaskID)
		return nil
	}
	switch method {
	case "tasks/get":
		pend.kind = kindTaskGet
	case "tasks/update":
		pend.kind = kindTaskUpdate
		b.answerTask(line, c, p.InputResponses)
	case "tasks/cancel":
		pend.kind = kindTaskCancel
		c.Task.CancelledByClient = true
		for _, q := range c.Questions {
			if q.Answer != nil {
				c.Task.AnsweredBeforeCancel++
			}
		}
	}
	return c
}

// list takes a list request as a call when Options.Lists asks, a next
// page as a round of the list call before it.
func (b *builder) list(line int, session, method string, p recording.Params, pend *pending) *Call {
	if !b.opts.Lists {
		b.conv.Lists++
		return nil
	}
	pend.kind = kindList
	if p.Cursor != nil {
		// A next page belongs to the list call before it.
		for i := len(b.conv.Calls) - 1; i >= 0; i-- {
			if c := b.conv.Calls[i]; c.Method == method && c.Session == session {
				c.Rounds++
				c.RoundLines = append(c.RoundLines, line)
				return c
			}
		}
	}
	c := &Call{Line: line, Method: method, Session: session, Protocol: pend.proto, Rounds: 1, RoundLines: []int{line}}
	b.conv.Calls = append(b.conv.Calls, c)
	return c
}

// answerRound gives the answers of a next round to the questions of the
// round before.
func (b *builder) answerRound(line int, c *Call, answers map[string]json.RawMessage) {
	for _, q := range c.Questions {
		if q.Answer != nil || q.AnswerErr != nil {
			continue
		}
		if q.Via == exchange.ViaURLError {
			q.Answer, q.AnswerLine, q.Implied = json.RawMessage(`{"action":"accept"}`), line, true
			continue
		}
		if a, ok := answers[q.Key]; ok && q.Via == exchange.ViaInputRequired {
			q.Answer, q.AnswerLine = a, line
		}
	}
}

// answerTask gives the answers of tasks/update to the task's questions.
func (b *builder) answerTask(line int, c *Call, answers map[string]json.RawMessage) {
	for _, q := range c.Questions {
		if a, ok := answers[q.Key]; ok && q.Via == exchange.ViaTask && q.Answer == nil {
			q.Answer, q.AnswerLine = a, line
		}
	}
}

// Cancelled notes a call the client cancelled.
func (b *builder) Cancelled(_ int, req *request) {
	if req.Call != nil && req.Data.kind == kindRound {
		req.Call.Cancelled = true
	}
}

// result reads the members of a result that a conversation needs.
type result struct {
	ResultType      string                           `json:"resultType"`
	InputRequests   map[string]json.RawMessage       `json:"inputRequests"`
	RequestState    *string                          `json:"requestState"`
	TaskID          string                           `json:"taskId"`
	Task            *struct{ TaskID, Status string } `json:"task"`
	Status          string                           `json:"status"`
	Result          json.RawMessage                  `json:"result"`
	Error           *jsonrpc.Error                   `json:"error"`
	ProtocolVersion string                           `json:"protocolVersion"`
	NextCursor      string                           `json:"nextCursor"`
}

// Response takes the server's answer to a request of the client.
func (b *builder) Response(w recording.Message, req *request, m *jsonrpc.Response) error {
	line := w.Line
	if req == nil {
		return nil // an answer to a request the recording does not hold
	}
	pend := req.Data
	werr, r := readResponse(m)
	c := req.Call
	if req.Method == "server/discover" && werr == nil {
		return b.checkProtocol(req.Line, pend.proto)
	}
	switch pend.kind {
	case kindInitialize:
		if werr == nil {
			return b.checkProtocol(line, r.ProtocolVersion)
		}
	case kindRound:
		b.roundAnswer(line, c, m, werr, r)
	case kindTaskGet:
		b.taskStatus(line, c, werr, r)
	case kindTaskResult:
		b.taskResult(line, c, m, werr)
	case kindList:
		b.listPage(line, c, req.Method, m, werr, r)
	default:
		if c != nil && c.Method == MethodSetLevel {
			b.end(c, line, m.Result, werr)
		}
	}
	return nil
}

// readResponse is the error of m as the wire says it, or its result.
func readResponse(m *jsonrpc.Response) (*jsonrpc.Error, result) {
	var werr *jsonrpc.Error
	if m.Error != nil {
		werr = recording.WireError(m.Error)
	}
	var r result
	if werr == nil {
		_ = json.Unmarshal(m.Result, &r)
	}
	return werr, r
}

// listPage takes a page of the answer to a list request of method: the
// list ends with its error, or its last page.
func (b *builder) listPage(line int, c *Call, method string, m *jsonrpc.Response, werr *jsonrpc.Error, r result) {
	if werr != nil {
		b.end(c, line, nil, werr)
		return
	}
	c.Result = appendPage(c.Result, m.Result, method)
	if r.NextCursor == "" {
		c.Ended, c.ResultLine = true, line
	}
}

// roundAnswer takes the server's answer to a round of a call: its end, its
// questions, or a task it runs as.
func (b *builder) roundAnswer(line int, c *Call, m *jsonrpc.Response, werr *jsonrpc.Error, r result) {
	switch {
	case werr != nil && werr.Code == urlRequiredCode:
		b.urlError(line, c, werr)
	case werr != nil:
		b.end(c, line, nil, werr)
	case r.ResultType == "input_required":
		b.roundQuestions(line, c, r)
	case r.ResultType == "task":
		id := r.TaskID
		if id == "" && r.Task != nil {
			id = r.Task.TaskID
		}
		c.Task = &Task{ID: id, Status: r.Status}
		b.calls.RunsAsTask(c, id, c.Session)
	case r.ResultType == "" && r.Task != nil && r.Task.TaskID != "":
		// A task of protocol 2025-11-25.
		c.Task = &Task{ID: r.Task.TaskID, Status: r.Task.Status, Era2025: true}
		b.calls.RunsAsTask(c, r.Task.TaskID, c.Session)
	default:
		b.end(c, line, m.Result, nil)
	}
}

// taskStatus takes a task's status (tasks/get): its questions, and its
// end.
func (b *builder) taskStatus(line int, c *Call, werr *jsonrpc.Error, r result) {
	if werr != nil || c.Ended {
		return // an ended task's status and questions are what they were when it ended
	}
	c.Task.Status = r.Status
	if c.Task.Era2025 {
		return // its result comes with tasks/result
	}
	irs, _ := recording.InputRequests(r.InputRequests)
	for _, ir := range irs {
		if !slices.ContainsFunc(c.Questions, func(q *Question) bool { return q.Via == exchange.ViaTask && q.Key == ir.Key }) {
			b.addQuestion(c, inputQuestion(line, exchange.ViaTask, ir))
		}
	}
	switch r.Status {
	case "completed":
		b.end(c, line, r.Result, nil)
	case "failed":
		e := r.Error
		if e == nil {
			e = &jsonrpc.Error{Code: -32603, Message: "the task failed"}
		}
		b.end(c, line, nil, e)
	case "cancelled":
		b.end(c, line, nil, nil)
	}
}

// taskResult takes what tasks/result answered, once the task has ended:
// failed with an error or an isError result, else completed.
func (b *builder) taskResult(line int, c *Call, m *jsonrpc.Response, werr *jsonrpc.Error) {
	if c.Ended {
		return
	}
	var ie struct{ IsError bool }
	_ = json.Unmarshal(m.Result, &ie)
	c.Task.Status = "completed"
	if werr != nil || ie.IsError {
		c.Task.Status = "failed"
	}
	b.end(c, line, m.Result, werr)
}

// urlRequiredCode is the error of 2025-11-25 that carries URL questions.
const urlRequiredCode = -32042

func (b *builder) end(c *Call, line int, res json.RawMessage, err *jsonrpc.Error) {
	c.Ended, c.ResultLine, c.Result, c.Err = true, line, res, err
	c.urlWait = false
	b.calls.End(c)
}

// urlError takes the URL questions of the error -32042: a retry of the
// call answers them.
func (b *builder) urlError(line int, c *Call, werr *jsonrpc.Error) {
	var data struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	_ = json.Unmarshal(werr.Data, &data)
	for _, e := range data.Elicitations {
		b.addQuestion(c, &Question{Line: line, Via: exchange.ViaURLError, Method: "elicitation/create", Params: e})
	}
	c.urlWait = true
	c.Err, c.ResultLine = werr, line // until a retry continues it
	b.calls.Wait(c, recording.Round{Method: c.Method, Name: c.Name, Session: c.Session, Args: c.Args, URL: true})
}

// roundQuestions takes the questions of an input_required result, in the
// order of their keys (the order a tester answers them).
func (b *builder) roundQuestions(line int, c *Call, r result) {
	irs, _ := recording.InputRequests(r.InputRequests)
	keys := make([]string, 0, len(irs))
	for _, ir := range irs {
		b.addQuestion(c, inputQuestion(line, exchange.ViaInputRequired, ir))
		keys = append(keys, ir.Key)
	}
	b.calls.Wait(c, recording.Round{Method: c.Method, Name: c.Name, Session: c.Session, Args: c.Args, Keys: keys, State: r.RequestState})
}

func inputQuestion(line int, via string, ir recording.InputRequest) *Question {
	return &Question{Line: line, Key: ir.Key, Via: via, Method: ir.Method, Params: ir.Params}
}

func (b *builder) addQuestion(c *Call, q *Question) {
	c.Questions = append(c.Questions, q)
}

// Question takes a question the server asked as a request, with the call
// it was asked during.
func (b *builder) Question(w recording.Message, m *jsonrpc.Request, asker recording.Asker[*Call]) (*Question, error) {
	line := w.Line
	var via string
	switch m.Method {
	case "elicitation/create":
		via = exchange.ViaRequest
	case "sampling/createMessage":
		via = exchange.ViaSamplingRequest
	case "roots/list":
		via = exchange.ViaRootsRequest
	}
	q := &Question{Line: line, Via: via, Method: m.Method, Params: m.Params}
	c := asker.Call
	switch {
	case asker.Found:
		if asker.Others > 0 {
			b.note(line, c, "%s came while %d calls were waiting for their results and nothing says whose it is: the script gives it to the earliest, %s (line %d)",
				m.Method, asker.Others+1, describe(c), c.Line)
		}
		b.addQuestion(c, q)
	case m.Method == "roots/list":
		// A server may ask for the roots at any time; they are the
		// client's, whatever call is running.
		b.conv.Outside = append(b.conv.Outside, q)
	default:
		b.note(line, nil, "the server sent %s outside any call: a script asks nothing outside its calls, so it is left out", m.Method)
	}
	return q, nil
}

func describe(c *Call) string {
	if c.Name == "" {
		return c.Method
	}
	return c.Method + " " + c.Name
}

// Answer takes the client's answer to a server request.
func (b *builder) Answer(w recording.Message, q *Question, _ bool, m *jsonrpc.Response) {
	if q == nil {
		return // a ping's, or an answer to a request the recording does not hold
	}
	q.AnswerLine = w.Line
	if m.Error != nil {
		q.AnswerErr = recording.WireError(m.Error)
		return
	}
	q.Answer = m.Result
}

// appendPage adds the items of a list page to what the pages before gave.
func appendPage(acc, page json.RawMessage, method string) json.RawMessage {
	member := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}[method]
	var items struct {
		Items []json.RawMessage
	}
	read := func(raw json.RawMessage) []json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		var list []json.RawMessage
		_ = json.Unmarshal(m[member], &list)
		return list
	}
	items.Items = append(read(acc), read(page)...)
	if items.Items == nil {
		items.Items = []json.RawMessage{}
	}
	out, _ := json.Marshal(map[string]any{member: items.Items})
	return out
}

// finish notes what the recording left open.
func (b *builder) finish() {
	why := "the recording ends"
	switch {
	case b.gone != 0:
		why = fmt.Sprintf("%s (line %d)", b.goneWhy, b.gone)
	case b.conv.Truncated:
		why = "the recording was cut short"
	}
	for _, c := range b.conv.Calls {
		if c.urlWait {
			// The URL questions were never followed by a retry: the call
			// ended with the error.
			c.Ended, c.urlWait = true, false
		}
		// A note is read after its line (FILE:LINE: or "line N of the
		// recording:"): its text does not name that line again.
		switch {
		case !c.Ended && !c.Cancelled && c.Task != nil:
			b.note(c.Line, c, "%s started task %s, whose result is not in the recording: %s first", describe(c), c.Task.ID, why)
		case !c.Ended && !c.Cancelled:
			b.note(c.Line, c, "%s has no result: %s first", describe(c), why)
		case c.Cancelled:
			b.note(c.Line, c, "the client cancelled %s: a script cannot cancel a call half-way", describe(c))
		}
		for _, q := range c.Questions {
			if !c.Ended && q.Answer == nil && q.AnswerErr == nil && q.Method == "elicitation/create" {
				b.note(q.Line, c, "the question got no answer: %s first", why)
			}
		}
	}
	sort.SliceStable(b.conv.Notes, func(i, j int) bool { return b.conv.Notes[i].Line < b.conv.Notes[j].Line })
}
