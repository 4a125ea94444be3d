package standin

import (
	"encoding/json"
	"fmt"

	"github.com/askback/askback/internal/recording"
)

// metaRelatedTask is the _meta key that ties a message to a task of
// protocol 2025-11-25.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// Task2025 is what a recording says of a call the server ran as a task of
// protocol 2025-11-25 (params.task, then tasks/get and tasks/result, the
// questions asked while tasks/result waited). The stand-in serves such a
// call as the task's flow amounts to: the questions asked during it are
// the exchange's rounds, the result tasks/result gave is its result. So a
// client of either era gets what the server gave: its questions (as
// input_required, or elicitation/create), then the task's result. A
// client of 2025-11-25 that asks for a task gets one (serve_tasks2025.go),
// and so does a client of 2026-07-28 that declares the tasks extension: a
// task of the extension (asExtTask).
type Task2025 struct {
	ID   string // the task's id in the recording
	Line int    // the line of the result that created it
	// Statuses are the statuses the server showed of the task (in the
	// result that created it, tasks/get and tasks/list), in order, one
	// repeated as it was shown kept once: the stand-in's tasks show their
	// messages, and none of their own (statusMessage).
	Statuses []Status2025
}

// Status2025 is a status of a task of 2025-11-25 as the server showed it.
type Status2025 struct {
	Status, Message string
	Line            int
}

// saw notes a status the server showed of the task.
func (t *Task2025) saw(line int, status, msg string) {
	if n := len(t.Statuses); n > 0 && t.Statuses[n-1].Status == status && t.Statuses[n-1].Message == msg {
		return
	}
	t.Statuses = append(t.Statuses, Status2025{Status: status, Message: msg, Line: line})
}

// message is the message the server showed with status: of the nth time
// (from 0) the task went into it, when it showed it so often, else "";
// the last one it showed with it when nth is below 0.
func (t *Task2025) message(status string, nth int) string {
	if t == nil {
		return ""
	}
	last, run, prev := "", -1, ""
	for _, st := range t.Statuses {
		if st.Status == status {
			last = st.Message
			if prev != status {
				run++
				if run == nth {
					return st.Message
				}
			}
		}
		prev = st.Status
	}
	if nth < 0 {
		return last
	}
	return ""
}

// taskShown notes the statuses a tasks/get or tasks/list result showed of
// the recorded tasks of 2025-11-25.
func (b *builder) taskShown(line int, raw json.RawMessage) {
	var r struct {
		taskStatus
		Tasks []taskStatus `json:"tasks"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return
	}
	for _, st := range append([]taskStatus{r.taskStatus}, r.Tasks...) {
		if x := b.tasks[st.TaskID]; x != nil && x.Task != nil && st.Status != "" {
			x.Task.saw(line, st.Status, st.StatusMessage)
		}
	}
}

// taskStatus is what a result shows of a task of 2025-11-25.
type taskStatus struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
}

// taskCreated takes a call the server answered with a task of protocol
// 2025-11-25: the exchange waits for the task's tasks/result.
func (b *builder) taskCreated(line int, x *Exchange, raw json.RawMessage) {
	var t taskStatus
	if json.Unmarshal(raw, &t) != nil || t.TaskID == "" {
		x.Unended = fmt.Sprintf("the server answered with a task that has no taskId (line %d)", line)
		b.warn(line, "%s ran as a task with no taskId: the call is answered with an error", x.Label())
		return
	}
	if b.tasks == nil {
		b.tasks = map[string]*Exchange{}
	}
	x.Task = &Task2025{ID: t.TaskID, Line: line}
	if t.Status != "" {
		x.Task.saw(line, t.Status, t.StatusMessage)
	}
	b.tasks[t.TaskID] = x
	b.calls.RunsAsTask(x, t.TaskID, x.session)
}

// taskRequest takes a request about a task of 2025-11-25 that a call of
// the recording started: tasks/result is where the task's questions and
// result come (it then stands for the call, x), tasks/get, tasks/cancel
// and tasks/list are no exchange of their own. It reports whether it took
// the request.
func (b *builder) taskRequest(method string, p recording.Params) (x *Exchange, took bool) {
	switch method {
	case "tasks/result", "tasks/get", "tasks/cancel":
	case "tasks/list":
		return nil, len(b.tasks) > 0
	default:
		return nil, false
	}
	x = b.tasks[p.TaskID]
	if x == nil {
		return nil, false
	}
	if method == "tasks/result" {
		return x, true
	}
	return nil, true
}

// finishTasks leaves the task's id out of the questions of its calls: the
// stand-in asks them as its own call's.
func (b *builder) finishTasks() {
	for _, x := range b.tasks {
		for _, r := range x.Rounds {
			for _, q := range r.Questions {
				q.Params = withoutMeta(q.Params, metaRelatedTask)
			}
		}
	}
}

// withoutMeta is raw (a JSON object) without the _meta key, and without
// _meta when nothing is left in it; raw itself when it has none.
func withoutMeta(raw json.RawMessage, key string) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return raw
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(members["_meta"], &meta) != nil || meta == nil {
		return raw
	}
	if _, ok := meta[key]; !ok {
		return raw
	}
	delete(meta, key)
	if len(meta) == 0 {
		delete(members, "_meta")
	} else {
		members["_meta"], _ = json.Marshal(meta)
	}
	out, err := json.Marshal(members)
	if err != nil {
		return raw
	}
	return out
}
