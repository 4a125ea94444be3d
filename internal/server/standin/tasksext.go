package standin

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ExtTask is what a recording says of a call the server ran as a task of
// the tasks extension (io.modelcontextprotocol/tasks, protocol
// 2026-07-28): the call answered with a task (resultType "task"), then
// the client polled tasks/get, answered the questions tasks/get showed
// with tasks/update, and maybe cancelled it with tasks/cancel. The
// questions are the exchange's rounds, in the order tasks/get first
// showed them, with the answers tasks/update gave; the result (or error)
// of the last tasks/get is the exchange's. So a client that does not ask
// for a task gets the call as the task amounts to, and one that declares
// the extension gets a task of the stand-in's own that goes through the
// recorded statuses (serve_tasksext.go).
type ExtTask struct {
	ID   string // the task's id in the recording
	Line int    // the line of the result that created it
	// TTLMs and PollIntervalMs are what the server said when it created
	// the task.
	TTLMs          *int64
	PollIntervalMs int64
	// States are the task's statuses as the client saw them, in order:
	// the one the call answered with, then each tasks/get's.
	States []TaskState
	// CancelLine is the line of the client's tasks/cancel; 0 when it sent
	// none.
	CancelLine int
}

// TaskState is one status of a recorded task.
type TaskState struct {
	Line    int
	Status  tasks.Status
	Message string
	// Keys are the questions it waited for (input_required), in order.
	Keys []string
	// AfterCancel: the client had asked to cancel the task when it saw it.
	AfterCancel bool
}

// extTaskCreated takes a call the server answered with a task of the tasks
// extension: the exchange's rounds and result come with tasks/get.
func (b *builder) extTaskCreated(line int, x *Exchange, h resultHead, raw json.RawMessage) {
	id := h.taskID()
	var c tasks.CreateTaskResult
	if json.Unmarshal(raw, &c) != nil || id == "" {
		x.Unended = fmt.Sprintf("the server answered with a task that has no taskId (line %d)", line)
		b.warn(line, "%s ran as a task (tasks extension) with no taskId: the call is answered with an error", x.Label())
		return
	}
	x.ExtTask = &ExtTask{ID: id, Line: line, TTLMs: c.TTLMs, PollIntervalMs: c.PollIntervalMs,
		States: []TaskState{{Line: line, Status: c.Status, Message: c.StatusMessage}}}
	b.calls.RunsAsTask(x, id, x.session)
}

// extTaskRequest takes a request about a task of the tasks extension that
// a call of the recording started (tasks/get, tasks/update, tasks/cancel):
// the answers of tasks/update go to the task's questions. It returns the
// call, and whether it took the request.
func (b *builder) extTaskRequest(line int, method string, p recording.Params) (*Exchange, bool) {
	switch method {
	case tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel:
	default:
		return nil, false
	}
	x, ok := b.calls.Task(p.TaskID)
	if !ok || x.ExtTask == nil {
		return nil, false
	}
	switch method {
	case tasks.MethodUpdate:
		x.answerTask(line, p.InputResponses)
	case tasks.MethodCancel:
		if x.ExtTask.CancelLine == 0 {
			x.ExtTask.CancelLine = line
		}
	}
	return x, true
}

// answerTask gives the answers of a tasks/update (at line) to the
// questions of x not answered yet.
func (x *Exchange) answerTask(line int, answers map[string]json.RawMessage) {
	for _, q := range x.questions() {
		if a, ok := answers[q.Key]; ok && q.Answer == nil && q.AnswerErr == nil {
			q.Answer, q.AnswerLine = a, line
		}
	}
}

// questions are the questions of every round of x, in order.
func (x *Exchange) questions() []*Question {
	var out []*Question
	for _, r := range x.Rounds {
		out = append(out, r.Questions...)
	}
	return out
}

// extTaskAnswered takes the server's answer to a request about task x:
// a status of tasks/get, with the questions it first shows and, once the
// task ended, its result or error; an error refusing the answers of a
// tasks/update, which then answered nothing.
func (b *builder) extTaskAnswered(line int, req *request, x *Exchange, m *jsonrpc.Response) error {
	if m.Error != nil {
		if req.Method == tasks.MethodUpdate {
			x.unanswerTask(req.Line)
		}
		return nil
	}
	if req.Method != tasks.MethodGet || x.Ended || x.Unended != "" {
		return nil // an ended task's statuses are what they were when it ended
	}
	var g tasks.GetTaskResult
	if err := json.Unmarshal(m.Result, &g); err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the status of %s's task (line %d) is not a task: %v", x.Label(), x.Line, err)}
	}
	st := TaskState{Line: line, Status: g.Status, Message: g.StatusMessage,
		AfterCancel: x.ExtTask.CancelLine > 0 && req.Line > x.ExtTask.CancelLine}
	for k := range g.InputRequests {
		st.Keys = append(st.Keys, k)
	}
	slices.Sort(st.Keys)
	if err := b.taskAsked(line, x, g.InputRequests); err != nil {
		return err
	}
	x.ExtTask.States = append(x.ExtTask.States, st)
	return b.extTaskEnded(line, x, g)
}

// unanswerTask takes back the answers a tasks/update (at line) gave, which
// the server refused.
func (x *Exchange) unanswerTask(line int) {
	for _, q := range x.questions() {
		if q.AnswerLine == line {
			q.Answer, q.AnswerLine = nil, 0
		}
	}
}

// taskAsked files the questions a task's status shows that x had not asked
// before as its next round.
func (b *builder) taskAsked(line int, x *Exchange, reqs map[string]json.RawMessage) error {
	fresh := map[string]json.RawMessage{}
	for k, v := range reqs {
		if !slices.ContainsFunc(x.questions(), func(q *Question) bool { return q.Key == k }) {
			fresh[k] = v
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	r, err := inputRound(line, fresh)
	if err != nil {
		return &recording.Error{Line: line, Err: fmt.Errorf("the questions of %s's task (line %d): %w", x.Label(), x.Line, err)}
	}
	x.Rounds = append(x.Rounds, r)
	return nil
}

// extTaskEnded takes how task x ended, if its status says it did.
func (b *builder) extTaskEnded(line int, x *Exchange, g tasks.GetTaskResult) error {
	switch g.Status {
	case tasks.StatusCompleted:
		res, err := finalResult(x.Method, g.Result)
		if err != nil {
			return &recording.Error{Line: line, Err: fmt.Errorf("the result of %s's task (line %d): %w", x.Label(), x.Line, err)}
		}
		x.Result, x.ResultLine, x.Ended = res, line, true
	case tasks.StatusFailed:
		x.Err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task failed"}
		if e := g.Error; e != nil {
			x.Err = &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
		}
		x.ResultLine, x.Ended = line, true
	case tasks.StatusCancelled:
		x.Unended = fmt.Sprintf("its task was cancelled (line %d)", line)
	default:
		return nil
	}
	b.calls.End(x)
	return nil
}
