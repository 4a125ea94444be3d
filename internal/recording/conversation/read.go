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

// metaRelatedTask is the key of a question's _meta that names its task.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// Read reads rec as a conversation. A recording in a protocol version this
// tester does not speak is a *recording.Error naming the line.
func Read(rec *recording.Recording, opts Options) (*Conversation, error) {
	b := &builder{
		conv:  &Conversation{Header: rec.Header, Truncated: rec.Truncated},
		opts:  opts,
		tasks: map[string]*Call{},
	}
	if err := recording.Walk(rec, b); err != nil {
		return nil, err
	}
	b.finish()
	return b.conv, nil
}

// pending is a client request waiting for its response.
type pending struct {
	line   int
	method string
	call   *Call // the call it is a round of, or reads the task of
	kind   int
	proto  string // the protocol version it was sent in
}

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
	reqs recording.Waiting[*pending]
	// sreqs are the server requests waiting for the client's answer: their
	// questions, nil for a ping.
	sreqs recording.Waiting[*Question]
	tasks map[string]*Call
	// rounds are the calls whose last round waits for a next one (answers
	// to input_required, a retry after -32042): the only ones a request
	// may continue, by the rule the stand-in pairs its rounds with too.
	rounds recording.Rounds[*Call]
	// gone is the line where the client or the server went, 0 while both
	// are there; goneWhy says which.
	gone    int
	goneWhy string
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
	}
}

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

// ClientRequest takes a request of the client: a call or its next round,
// a task's request, a list, a level, or a note of what a script cannot send.
func (b *builder) ClientRequest(w recording.Message, m *jsonrpc.Request) error {
	line, session := w.Line, w.Session
	p := recording.ReadParams(m.Params)
	proto := p.MetaProtocol()
	if proto == "" && w.Entry.HTTP != nil {
		proto = w.Entry.HTTP.ProtocolVersion
	}
	if m.Method != "server/discover" {
		// A probe's version counts when the server answers it (ServerResponse).
		if err := b.checkProtocol(line, proto); err != nil {
			return err
		}
	}
	if !m.ID.IsValid() {
		b.clientNotification(session, m, p)
		return nil
	}
	pend := &pending{line: line, method: m.Method, proto: proto}
	defer b.reqs.Add(session, w.Stream, m.ID, pend)
	switch m.Method {
	case "initialize":
		pend.kind = kindInitialize
		return b.checkProtocol(line, p.Protocol)
	case "tools/call", "prompts/get", "resources/read":
		name := p.Name
		if m.Method == "resources/read" {
			name = p.URI
		}
		c, ok := b.rounds.Continue(m.Method, name, session, p)
		if !ok {
			c = &Call{Line: line, Method: m.Method, Name: name, Args: p.Arguments, Session: session, Protocol: proto}
			b.conv.Calls = append(b.conv.Calls, c)
			if len(p.InputResponses) > 0 || p.RequestState != nil {
				b.note(line, c, "%s %s carries answers to a question the recording does not hold (it began after the question was asked?): the script calls it afresh", m.Method, name)
			}
		} else {
			b.answerRound(line, c, p.InputResponses)
		}
		c.Rounds++
		c.RoundLines = append(c.RoundLines, line)
		c.urlWait = false
		pend.kind, pend.call = kindRound, c
	case "tasks/get", "tasks/update", "tasks/cancel":
		c := b.tasks[p.TaskID]
		if c == nil {
			b.note(line, nil, "%s for task %q, which no call of the recording started: left out", m.Method, p.TaskID)
			return nil
		}
		pend.call = c
		switch m.Method {
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
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		if !b.opts.Lists {
			b.conv.Lists++
			return nil
		}
		if p.Cursor != nil {
			// A next page belongs to the list call before it.
			for i := len(b.conv.Calls) - 1; i >= 0; i-- {
				if c := b.conv.Calls[i]; c.Method == m.Method && c.Session == session {
					c.Rounds++
					c.RoundLines = append(c.RoundLines, line)
					pend.kind, pend.call = kindList, c
					return nil
				}
			}
		}
		c := &Call{Line: line, Method: m.Method, Session: session, Protocol: proto, Rounds: 1, RoundLines: []int{line}}
		b.conv.Calls = append(b.conv.Calls, c)
		pend.kind, pend.call = kindList, c
	case MethodSetLevel:
		c := &Call{Line: line, Method: m.Method, Name: p.Level, Session: session, Protocol: proto, Rounds: 1, RoundLines: []int{line}}
		b.conv.Calls = append(b.conv.Calls, c)
		pend.call = c
	case "tasks/result":
		// Protocol 2025-11-25: the result of a task a call started.
		if c := b.tasks[p.TaskID]; c != nil {
			pend.kind, pend.call = kindTaskResult, c
		}
	case "ping", "server/discover", "tasks/list":
		// Session machinery: the tester does its own.
	default:
		b.note(line, nil, "the client sent %s, which a script cannot send: left out", m.Method)
	}
	return nil
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

func (b *builder) clientNotification(session string, m *jsonrpc.Request, p recording.Params) {
	if m.Method != "notifications/cancelled" {
		return
	}
	id, ok := recording.CancelledID(p.RequestID)
	if !ok {
		return
	}
	for _, pend := range b.reqs.Get(session, id) {
		if pend.call != nil && pend.kind == kindRound {
			pend.call.Cancelled = true
		}
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

// ServerResponse takes the server's answer to a request of the client.
func (b *builder) ServerResponse(w recording.Message, m *jsonrpc.Response) error {
	line := w.Line
	pend, ok := b.reqs.Take(w.Session, w.Stream, m.ID)
	if !ok {
		return nil // an answer to a request the recording does not hold
	}
	var werr *jsonrpc.Error
	if m.Error != nil {
		werr = recording.WireError(m.Error)
	}
	var r result
	if werr == nil {
		_ = json.Unmarshal(m.Result, &r)
	}
	c := pend.call
	if pend.method == "server/discover" && werr == nil {
		return b.checkProtocol(pend.line, pend.proto)
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
		if werr != nil {
			b.end(c, line, nil, werr)
			return nil
		}
		c.Result = appendPage(c.Result, m.Result, pend.method)
		if r.NextCursor == "" {
			c.Ended, c.ResultLine = true, line
		}
	default:
		if c != nil && c.Method == MethodSetLevel {
			b.end(c, line, m.Result, werr)
		}
	}
	return nil
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
		b.tasks[id] = c
	case r.ResultType == "" && r.Task != nil && r.Task.TaskID != "":
		// A task of protocol 2025-11-25.
		c.Task = &Task{ID: r.Task.TaskID, Status: r.Task.Status, Era2025: true}
		b.tasks[r.Task.TaskID] = c
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
	b.rounds.Forget(c)
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
	b.rounds.Wait(c, recording.Round{Method: c.Method, Name: c.Name, Session: c.Session, Args: c.Args, URL: true})
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
	b.rounds.Wait(c, recording.Round{Method: c.Method, Name: c.Name, Session: c.Session, Args: c.Args, Keys: keys, State: r.RequestState})
}

func inputQuestion(line int, via string, ir recording.InputRequest) *Question {
	return &Question{Line: line, Key: ir.Key, Via: via, Method: ir.Method, Params: ir.Params}
}

func (b *builder) addQuestion(c *Call, q *Question) {
	c.Questions = append(c.Questions, q)
}

// ServerRequest takes a question the server asked as a request and finds
// the call it belongs to.
func (b *builder) ServerRequest(w recording.Message, m *jsonrpc.Request) error {
	line, session := w.Line, w.Session
	if !m.ID.IsValid() {
		return nil // a notification: progress, a log message, a list changed
	}
	var q *Question // nil for a ping
	defer func() { b.sreqs.Add(session, "", m.ID, q) }()
	var via string
	switch m.Method {
	case "elicitation/create":
		via = exchange.ViaRequest
	case "sampling/createMessage":
		via = exchange.ViaSamplingRequest
	case "roots/list":
		via = exchange.ViaRootsRequest
	default:
		return nil // ping and the like: the tester answers them itself
	}
	q = &Question{Line: line, Via: via, Method: m.Method, Params: m.Params}
	c := b.callOf(line, session, w.Stream, recording.ReadParams(m.Params), m.Method)
	switch {
	case c != nil:
		b.addQuestion(c, q)
	case m.Method == "roots/list":
		// A server may ask for the roots at any time; they are the
		// client's, whatever call is running.
		b.conv.Outside = append(b.conv.Outside, q)
	default:
		b.note(line, nil, "the server sent %s outside any call: a script asks nothing outside its calls, so it is left out", m.Method)
	}
	return nil
}

// callOf finds the call a server request belongs to: the task its _meta
// names; over HTTP the call whose request stream carries it; else the one
// call waiting for its result (the earliest of several, with a note), or
// the last task still running.
func (b *builder) callOf(line int, session, stream string, p recording.Params, method string) *Call {
	if raw, ok := p.Meta[metaRelatedTask]; ok {
		var rt struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(raw, &rt)
		if c := b.tasks[rt.TaskID]; c != nil {
			return c
		}
	}
	if p, others, ok := b.reqs.Asker(session, stream, func(p *pending) bool { return p.kind == kindRound }); ok {
		if others > 0 {
			b.note(line, p.call, "%s came while %d calls were waiting for their results and nothing says whose it is: the script gives it to the earliest, %s (line %d)",
				method, others+1, describe(p.call), p.call.Line)
		}
		return p.call
	}
	for i := len(b.conv.Calls) - 1; i >= 0; i-- {
		if c := b.conv.Calls[i]; c.Task != nil && !c.Ended && c.Session == session {
			return c
		}
	}
	return nil
}

func describe(c *Call) string {
	if c.Name == "" {
		return c.Method
	}
	return c.Method + " " + c.Name
}

// ClientResponse takes the client's answer to a server request.
func (b *builder) ClientResponse(w recording.Message, m *jsonrpc.Response) error {
	q, _ := b.sreqs.Take(w.Session, "", m.ID)
	if q == nil {
		return nil // a ping's, or an answer to a request the recording does not hold
	}
	q.AnswerLine = w.Line
	if m.Error != nil {
		q.AnswerErr = recording.WireError(m.Error)
		return nil
	}
	q.Answer = m.Result
	return nil
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
		if !c.Ended && !c.Cancelled {
			b.note(c.Line, c, "%s (line %d) has no result: %s first", describe(c), c.Line, why)
		}
		if c.Cancelled {
			b.note(c.Line, c, "the client cancelled %s (line %d): a script cannot cancel a call half-way", describe(c), c.Line)
		}
		for _, q := range c.Questions {
			if !c.Ended && q.Answer == nil && q.AnswerErr == nil && q.Method == "elicitation/create" {
				b.note(q.Line, c, "the question at line %d got no answer: %s first", q.Line, why)
			}
		}
	}
	sort.SliceStable(b.conv.Notes, func(i, j int) bool { return b.conv.Notes[i].Line < b.conv.Notes[j].Line })
}
