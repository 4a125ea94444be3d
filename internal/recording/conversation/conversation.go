// Package conversation reads a recording (internal/recording) as what the
// client did: its calls in the order it made them, each with the rounds it
// took, the questions the server asked during it and the answers the
// client gave, and how it ended. It pairs each response with its request
// and each answer with its question by id, direction, session and stream,
// so that concurrent calls keep their own questions, on both protocol
// eras: 2026-07-28 rounds of input_required (questions in inputRequests,
// answers in the next request's inputResponses), 2025-11-25 server
// requests (elicitation/create, sampling/createMessage, roots/list,
// answered in the client's response) and the URL error -32042, and tasks
// (tasks/get shows the questions, tasks/update answers them).
//
// What the recording shows the client doing that a replay cannot do as it
// did (a call it cancelled, a question it never answered, a request a
// script cannot send) is kept as a Note, with the recording's line.
package conversation

import (
	"encoding/json"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Conversation is what a recording says the client did.
type Conversation struct {
	Header recording.Header
	// Truncated: the recording's last line was cut short (the proxy was
	// killed while it wrote); what came before it is read.
	Truncated bool
	// Protocols are the protocol versions the client spoke, in the order
	// they appeared.
	Protocols []string
	// Calls are the client's calls, in the order it made them.
	Calls []*Call
	// Outside are the requests for the roots the server sent outside any
	// call, with the client's answers.
	Outside []*Question
	// Notes are what a replay cannot do as the client did, in the order of
	// the recording.
	Notes []Note
	// Lists counts the list requests (tools/list, …) that Options.Lists
	// did not take as calls.
	Lists int
}

// Note is something the recording shows that a replay cannot do as the
// client did.
type Note struct {
	Line int   // the recording's line (the header is line 1)
	Call *Call // the call it concerns; nil for none
	Text string
}

// Methods a Call may have, besides tools/call, prompts/get and
// resources/read.
const (
	MethodSetLevel = "logging/setLevel"
)

// Call is one call of the client, over all its rounds.
type Call struct {
	Line     int    // the recording's line of its first request
	Method   string // tools/call, prompts/get, resources/read, a list method, or logging/setLevel
	Name     string // the tool or prompt name, the resource URI, the log level
	Args     json.RawMessage
	Session  string // the HTTP session label ("s1"), empty over stdio and for stateless requests
	Protocol string // the protocol version the call was made in, when the recording says
	Rounds   int    // the requests the call took (a round of input_required, a retry after -32042)
	// RoundLines are the recording's lines of those requests, in order.
	RoundLines []int
	// Questions are the questions asked during the call, in the order
	// they were asked, each with the client's answer.
	Questions []*Question
	// Result is the final result (the task's result for a task); nil when
	// the call failed or never ended.
	Result json.RawMessage
	// ResultLine is the recording's line of the final result or error.
	ResultLine int
	// Err is the JSON-RPC error the call ended with (a task that failed
	// ends with its error).
	Err *jsonrpc.Error
	// Task is set when the server ran the call as a task.
	Task *Task
	// Cancelled: the client cancelled the call (notifications/cancelled).
	Cancelled bool
	// Ended: a result or an error ended the call. A call that did not end
	// was cut off (the client left, the recording ended).
	Ended bool

	urlWait bool // the last round ended in the -32042 URL error: a retry continues it
}

// Task is what a call's task did.
type Task struct {
	ID     string
	Status string // the last status seen: working, input_required, completed, failed, cancelled
	// CancelledByClient: the client sent tasks/cancel.
	CancelledByClient bool
	// AnsweredBeforeCancel counts the questions answered before the
	// client's tasks/cancel.
	AnsweredBeforeCancel int
	// Era2025: a task of protocol 2025-11-25 ({"task": {...}}), whose
	// result comes with tasks/result, not with tasks/get.
	Era2025 bool
}

// Question is one question the server asked during a call.
type Question struct {
	Line   int    // the recording's line of the question
	Key    string // its inputRequests key; empty for a server request
	Via    string // how it came: one of the exchange.Via constants
	Method string // elicitation/create, sampling/createMessage or roots/list
	Params json.RawMessage
	// Answer is the client's answer (an ElicitResult, a CreateMessageResult
	// or a ListRootsResult); nil when it gave none.
	Answer json.RawMessage
	// AnswerLine is the recording's line of the answer.
	AnswerLine int
	// AnswerErr is the error the client answered a server request with.
	AnswerErr *jsonrpc.Error
	// Implied: the answer was not sent but shown by what the client did
	// (a retry after the URL error -32042 accepts its URL questions).
	Implied bool
}

// Mode is the mode of an elicitation, "form" when it says none.
func (q *Question) Mode() string {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(q.Params, &p)
	if p.Mode == "" {
		if q.Method != "elicitation/create" {
			return ""
		}
		return "form"
	}
	return p.Mode
}

// Action is the action of an elicitation's answer, empty when there is
// none.
func (q *Question) Action() string {
	var a struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(q.Answer, &a)
	return a.Action
}
