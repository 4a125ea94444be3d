package standin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Script is what a recording says the server did, as a stand-in serves
// it: each request the client made with the rounds of questions the server
// asked and the answer it ended with, and what the server said of itself.
type Script struct {
	Header recording.Header
	// Truncated: the recording's last line was cut short; the exchanges
	// are those before it.
	Truncated bool
	// Protocols are the protocol versions spoken in the recording, in the
	// order they appeared.
	Protocols []string
	// Exchanges are the client's requests in the order it made them.
	Exchanges []*Exchange
	// Server is what the server said of itself (initialize, or
	// server/discover and the _meta of its results).
	Server ServerFacts
	// Warnings are what the stand-in cannot serve as recorded, each a
	// *recording.Error naming its line (recording.InFile adds the file).
	Warnings []error

	byKey    map[string][]*Exchange // by method and match key, in order
	byMethod map[string][]*Exchange // by method, in order
	// hidden are, by method, the first exchange of each match key that
	// holds an argument the proxy hid (hidesArguments), in order.
	hidden map[string][]*Exchange
}

// ServerFacts are what initialize (or server/discover) said.
type ServerFacts struct {
	Info         json.RawMessage // serverInfo
	Capabilities json.RawMessage
	Instructions string
	Line         int // where they came from; 0 when the recording has none
}

// Exchange is one request of the client, over all its rounds.
type Exchange struct {
	Index int
	Line  int // the line of its first request (the header is line 1)
	// RoundLines are the lines of its requests, the first and each next
	// round's, in order.
	RoundLines []int
	Method     string
	Name       string          // the tool or prompt name, or the resource URI
	Params     json.RawMessage // the first request's params
	Key        string          // matchKey of Params
	// Rounds are the rounds of questions the server asked before its
	// answer, in order.
	Rounds []*Round
	// Result is the server's final result; Err its error instead.
	Result     json.RawMessage
	Err        *jsonrpc.Error
	ResultLine int
	// Ended: a result or an error ended the exchange; one that did not
	// was cut off (the client left or cancelled, the recording ended).
	Ended bool
	// Why an exchange did not end, in words.
	Unended string
	// Task is set when the server ran the call as a task of protocol
	// 2025-11-25: its rounds and result are the task's.
	Task *Task2025
	// ExtTask is set when the server ran the call as a task of the tasks
	// extension: its rounds and result are the task's.
	ExtTask *ExtTask

	session string
	// clientCaps are what the recorded client declared (capsOf), for a
	// list: a list is answered with the one whose client declared the
	// capabilities nearest the asking client's.
	clientCaps []string
}

// Round is the questions the server asked at once.
type Round struct {
	Questions []*Question
	// asked is how the round was asked: in an input_required result, or
	// as server requests (2025-11-25).
	serverRequests bool
}

// Question is one question the server asked, with the client's answer.
type Question struct {
	Line int
	// Key is its inputRequests key; for a question asked as a server
	// request (2025-11-25), which has none, "q1", "q2", … in the order the
	// exchange asked them.
	Key    string
	Method string // elicitation/create, sampling/createMessage or roots/list
	Params json.RawMessage
	// Answer is the client's answer; nil when it gave none.
	Answer     json.RawMessage
	AnswerErr  *jsonrpc.Error
	AnswerLine int
}

// Label names an exchange for people: its method and name.
func (x *Exchange) Label() string {
	if x.Name == "" {
		return x.Method
	}
	return x.Method + " " + x.Name
}

// Questions counts the questions of every round.
func (x *Exchange) Questions() int {
	n := 0
	for _, r := range x.Rounds {
		n += len(r.Questions)
	}
	return n
}

// recorded returns the exchanges recorded for a method and match key,
// with the key they were recorded with: key itself, or the key of the
// earliest recorded request whose hidden arguments (credentials the proxy
// hid) match any value and whose other params are key's.
func (s *Script) recorded(method, key string) ([]*Exchange, string) {
	if xs := s.byKey[method+"\x00"+key]; len(xs) > 0 {
		return xs, key
	}
	for _, x := range s.hidden[method] {
		if matchesHidden(x.Key, key) {
			return s.byKey[method+"\x00"+x.Key], x.Key
		}
	}
	return nil, key
}

// file adds x to the exchanges that answer its method and match key.
func (s *Script) file(x *Exchange) {
	k := x.Method + "\x00" + x.Key
	s.byKey[k] = append(s.byKey[k], x)
	s.byMethod[x.Method] = append(s.byMethod[x.Method], x)
	if len(s.byKey[k]) == 1 && hidesArguments(x.Key) {
		if s.hidden == nil {
			s.hidden = map[string][]*Exchange{}
		}
		s.hidden[x.Method] = append(s.hidden[x.Method], x)
	}
}

// Methods returns the methods the client called, in the order they first
// appear.
func (s *Script) Methods() []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s.Exchanges {
		if !seen[x.Method] {
			seen[x.Method] = true
			out = append(out, x.Method)
		}
	}
	return out
}

// Of returns the exchanges of one method, in order. The slice is the
// script's: not to be changed.
func (s *Script) Of(method string) []*Exchange {
	if s.byMethod != nil {
		return s.byMethod[method]
	}
	var out []*Exchange
	for _, x := range s.Exchanges {
		if x.Method == method {
			out = append(out, x)
		}
	}
	return out
}

// firstLine is the line of the first recorded request of method naming
// name (a call's tool, prompt or resource), or 0 when it holds none.
func (s *Script) firstLine(method, name string) int {
	for _, x := range s.Of(method) {
		if x.Name == name {
			return x.Line
		}
	}
	return 0
}

// requiresTask reports whether a tools/list answer of the recording says
// the tool name runs only as a task (execution.taskSupport "required",
// 2025-11-25).
func (s *Script) requiresTask(name string) bool {
	for _, x := range s.Of("tools/list") {
		if e, ok := executions(x.Result)[name]; ok {
			var exec struct {
				TaskSupport string `json:"taskSupport"`
			}
			return json.Unmarshal(e, &exec) == nil && exec.TaskSupport == "required"
		}
	}
	return false
}

// untaskedRefusal is the answer to a call of the tool name, which runs
// only as a task (requiresTask), that asks for no task: as the recorded
// server answered such a call, when the recording holds one (its error,
// or its result: the reference server of the TypeScript SDK answers with
// a result, isError, that says the tool needs a task), else a refusal of
// its own in the words of the specification (2025-11-25, tasks: "Invalid
// request" for a request that needs a task): -32600, naming the tool and
// saying it needs a task. It is not the -32601 the specification's
// tool-level rule names: the go-sdk words every -32601 as "method not
// found" of tools/call, which it is not.
func (s *Script) untaskedRefusal(name string) (mcp.Result, error) {
	for _, x := range s.Of("tools/call") {
		if x.Name != name || x.Task != nil || x.ExtTask != nil || !x.Ended || askedForTask(x.Params) {
			continue
		}
		if x.Err != nil {
			e := *x.Err
			return nil, &e
		}
		if isErrorResult(x.Result) {
			return &rawResult{raw: x.Result}, nil
		}
	}
	return nil, rpcError(jsonrpc.CodeInvalidRequest, nil,
		"mcp-tester serve: tool %q needs a task: it runs only as a task (the recording's tools/list says its execution.taskSupport is \"required\"), and this call asks for none; ask for a task (params.task of protocol 2025-11-25, or the tasks extension)", name)
}

// askedForTask reports whether a recorded call's params asked for a task
// of protocol 2025-11-25 (params.task).
func askedForTask(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	return len(p.Task) > 0 && string(p.Task) != "null"
}

// isErrorResult reports whether a recorded tool result says isError.
func isErrorResult(res json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(res, &r) == nil && r.IsError
}

// Summary says in one line what the script holds.
func (s *Script) Summary() string {
	calls, questions := 0, 0
	for _, x := range s.Exchanges {
		if isCall(x.Method) {
			calls++
		}
		questions += x.Questions()
	}
	proto := "protocol unknown"
	if len(s.Protocols) > 0 {
		proto = "protocol " + strings.Join(s.Protocols, ", ")
	}
	return fmt.Sprintf("%s (%s, %s), %s", plural(len(s.Exchanges), "request"), plural(calls, "call"), plural(questions, "question"), proto)
}

// callsByKey are the recorded calls a client is to make, grouped by
// method and match key (as the stand-in answers them: take), each group
// in the recorded order, the groups in the order of their first: the
// calls the recording holds an answer for (one it ended before
// answering, the client cancelled or left, is none the client is to
// make again).
func (s *Script) callsByKey() [][]*Exchange {
	var groups [][]*Exchange
	at := map[string]int{}
	for _, x := range s.Exchanges {
		if !isCall(x.Method) || !x.Ended {
			continue
		}
		k := x.Method + "\x00" + x.Key
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], x)
	}
	return groups
}

// isCall reports whether method may ask questions (and so take rounds).
func isCall(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}
