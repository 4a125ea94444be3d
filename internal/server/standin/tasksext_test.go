package standin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extTaskRecording is a call run as a task of the tasks extension: created
// working, polled working, then waiting for "k" (twice), answered, working
// again, then (with cancel) cancelled by the client, else completed.
func extTaskRecording(cancel bool) string {
	c2s := func(id int, method, params string) string {
		return fmt.Sprintf(`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}}`+"\n", id, method, params)
	}
	s2c := func(id int, result string) string {
		return fmt.Sprintf(`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":%s}}`+"\n", id, result)
	}
	get := func(id int) string { return c2s(id, "tasks/get", `{"taskId":"T1"}`) }
	status := func(id int, status, msg, more string) string {
		return s2c(id, `{"resultType":"complete","taskId":"T1","status":"`+status+`","statusMessage":"`+msg+`","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5`+more+`}`)
	}
	question := `,"inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"form","message":"Go on?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}`
	text := header +
		c2s(1, "tools/call", `{"name":"roll","arguments":{"n":1}}`) +
		s2c(1, `{"resultType":"task","taskId":"T1","status":"working","statusMessage":"started","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`) +
		get(2) + status(2, "working", "one", "") +
		get(3) + status(3, "input_required", "asking", question) +
		get(4) + status(4, "input_required", "asking", question) +
		c2s(5, "tasks/update", `{"taskId":"T1","inputResponses":{"k":{"action":"accept","content":{"ok":true}}}}`) + s2c(5, `{"resultType":"complete"}`) +
		get(6) + status(6, "working", "answered", "")
	if cancel {
		return text +
			c2s(7, "tasks/cancel", `{"taskId":"T1"}`) + s2c(7, `{"resultType":"complete"}`) +
			get(8) + status(8, "working", "cancelling", "") +
			get(9) + status(9, "cancelled", "cancelled", "")
	}
	return text + get(7) + status(7, "completed", "done", `,"result":{"content":[{"type":"text","text":"rolled"}]}`)
}

// A recorded task of the tasks extension is its call's exchange: the
// question tasks/get showed is its round, answered by tasks/update, the
// result the last tasks/get gave is its result, and the statuses are kept
// in order. Its tasks/* requests are no exchanges of their own, and it is
// no warning.
func TestBuildExtTask(t *testing.T) {
	sc := script(t, extTaskRecording(false))
	if len(sc.Exchanges) != 1 {
		t.Fatalf("%d exchanges, want the call's alone", len(sc.Exchanges))
	}
	if len(sc.Warnings) > 0 {
		t.Errorf("warnings: %v", sc.Warnings)
	}
	x := sc.Exchanges[0]
	if x.ExtTask == nil || x.ExtTask.ID != "T1" || x.ExtTask.PollIntervalMs != 5 {
		t.Fatalf("task %+v", x.ExtTask)
	}
	if len(x.Rounds) != 1 || len(x.Rounds[0].Questions) != 1 || x.Rounds[0].Questions[0].Key != "k" ||
		string(x.Rounds[0].Questions[0].Answer) != `{"action":"accept","content":{"ok":true}}` {
		t.Errorf("rounds %+v", x.Rounds)
	}
	if !x.Ended || string(x.Result) != `{"content":[{"type":"text","text":"rolled"}]}` {
		t.Errorf("result %s (ended %v)", x.Result, x.Ended)
	}
	want := "working:started:, working:one:, input_required:asking:k, input_required:asking:k, working:answered:, completed:done:"
	if got := statesOf(x.ExtTask); got != want {
		t.Errorf("states\n got %s\nwant %s", got, want)
	}
}

// statesOf writes a recorded task's statuses as STATUS:MESSAGE:KEYS.
func statesOf(task *ExtTask) string {
	var out []string
	for _, st := range task.States {
		out = append(out, string(st.Status)+":"+st.Message+":"+strings.Join(st.Keys, ","))
	}
	return strings.Join(out, ", ")
}

// A recorded task the client cancelled holds no answer, and its statuses
// after the cancel say so.
func TestBuildExtTaskCancelled(t *testing.T) {
	cancelled := script(t, extTaskRecording(true)).Exchanges[0]
	if cancelled.Ended || !strings.Contains(cancelled.Unended, "cancelled") || cancelled.ExtTask.CancelLine == 0 {
		t.Errorf("cancelled: ended %v, %q", cancelled.Ended, cancelled.Unended)
	}
	if n := len(cancelled.ExtTask.States); !cancelled.ExtTask.States[n-1].AfterCancel || !cancelled.ExtTask.States[n-2].AfterCancel || cancelled.ExtTask.States[n-3].AfterCancel {
		t.Errorf("the statuses after the cancel: %+v", cancelled.ExtTask.States)
	}
}

// shows polls tk n times and says what each tasks/get showed.
func shows(tk *extTask, n int) string {
	var out []string
	for range n {
		g := tk.poll(time.Unix(0, 0))
		s := string(g.Status) + ":" + g.StatusMessage
		for k := range g.InputRequests {
			s += ":" + k
		}
		if g.Result != nil {
			s += ":" + string(g.Result)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func runExtTask(t *testing.T, cancel bool) *extTask {
	t.Helper()
	x := script(t, extTaskRecording(cancel)).Exchanges[0]
	return &extTask{id: "S1", x: x, rec: x.ExtTask, answered: map[string]bool{}}
}

// A served task shows the recorded statuses one tasks/get at a time; it
// stays at a question until tasks/update answers it, then goes past the
// statuses recorded while the question waited, and stays at the last.
func TestExtTaskShowsTheRecordedStatuses(t *testing.T) {
	tk := runExtTask(t, false)
	if got, want := shows(tk, 3), "working:one, input_required:asking:k, input_required:asking:k"; got != want {
		t.Fatalf("before the answer\n got %s\nwant %s", got, want)
	}
	if taken := tk.take(map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`), "other": nil}, time.Unix(0, 0)); len(taken) != 1 || taken[0].Key != "k" {
		t.Fatalf("taken %v", taken)
	}
	if got, want := shows(tk, 3), `working:answered, completed:done:{"content":[{"type":"text","text":"rolled"}]}, completed:done:{"content":[{"type":"text","text":"rolled"}]}`; got != want {
		t.Errorf("after the answer\n got %s\nwant %s", got, want)
	}
	if !tk.ended() || tk.unanswered() != "" {
		t.Errorf("ended %v, unanswered %q", tk.ended(), tk.unanswered())
	}
}

// An answer sent before the question was shown is taken only once the
// task waits for it; a question shown and not answered is reported.
func TestExtTaskTakesAnswersItWaitsFor(t *testing.T) {
	tk := runExtTask(t, false)
	if taken := tk.take(map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}, time.Unix(0, 0)); len(taken) != 0 {
		t.Errorf("taken before it was asked: %v", taken)
	}
	shows(tk, 2)
	if tk.unanswered() != "k" {
		t.Errorf("unanswered %q, want k", tk.unanswered())
	}
}

// A client that does not cancel never sees what the recorded client's
// cancel brought; one that cancels does; a cancel the recording holds
// nothing after ends the task cancelled.
func TestExtTaskCancel(t *testing.T) {
	tk := runExtTask(t, true)
	shows(tk, 2)
	tk.take(map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}, time.Unix(0, 0))
	if got, want := shows(tk, 3), "working:answered, working:answered, working:answered"; got != want {
		t.Errorf("not cancelled\n got %s\nwant %s", got, want)
	}
	tk.cancel(time.Unix(0, 0))
	if got, want := shows(tk, 3), "working:cancelling, cancelled:cancelled, cancelled:cancelled"; got != want {
		t.Errorf("cancelled\n got %s\nwant %s", got, want)
	}

	tk = runExtTask(t, false)
	shows(tk, 2)
	tk.cancel(time.Unix(0, 0))
	if got, want := shows(tk, 2), "cancelled:Cancelled at the client's request., cancelled:Cancelled at the client's request."; got != want || !tk.ended() {
		t.Errorf("cancelled with nothing recorded after\n got %s\nwant %s", got, want)
	}
	if tk.unanswered() != "" {
		t.Errorf("a cancelled task's question is reported unanswered")
	}
}

type fakeTask struct{ done bool }

func (f *fakeTask) ended() bool { return f.done }

// The tasks kept are bounded per client: an ended task of the client's
// makes room, a running one never does.
func TestTaskTableBoundsPerClient(t *testing.T) {
	tt := newTaskTable(4, 2)
	a1, a2 := &fakeTask{}, &fakeTask{}
	for id, tk := range map[string]*fakeTask{"a1": a1, "a2": a2} {
		if err := tt.add(id, "a", tk); err != nil {
			t.Fatal(err)
		}
	}
	if err := tt.add("a3", "a", &fakeTask{}); err == nil || !strings.Contains(err.Error(), "for one client") {
		t.Fatalf("a third task of a client: %v", err)
	}
	a1.done = true
	if err := tt.add("a3", "a", &fakeTask{}); err != nil || tt.get("a1") != nil || tt.get("a2") == nil {
		t.Fatalf("an ended task did not make room: %v", err)
	}
}

// The tasks kept are bounded in all: an ended task of any client makes
// room, a running one never does.
func TestTaskTableBoundsInAll(t *testing.T) {
	tt := newTaskTable(4, 2)
	a2 := &fakeTask{}
	for id, tk := range map[string]*fakeTask{"a1": {}, "a2": a2} {
		if err := tt.add(id, "a", tk); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"b1", "b2"} {
		if err := tt.add(id, "b", &fakeTask{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tt.add("c1", "c", &fakeTask{}); err == nil || !strings.Contains(err.Error(), "4 tasks running") {
		t.Fatalf("a task beyond the total: %v", err)
	}
	a2.done = true
	if err := tt.add("c1", "c", &fakeTask{}); err != nil || tt.get("a2") != nil {
		t.Fatalf("an ended task did not make room: %v", err)
	}
	if got := len(tt.all()); got != 4 {
		t.Errorf("%d tasks kept", got)
	}
}

// A tasks/* request about a task of the extension from a client that did
// not declare the extension is refused as the extension refuses it:
// -32021, naming the extension.
func TestExtTaskRequestsNeedTheExtension(t *testing.T) {
	declared := &taskIDParams{TaskID: "x"}
	declared.Meta = mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{tasks.ExtensionID: map[string]any{}}}}
	if err := declaredTasks(nil, declared); err != nil {
		t.Errorf("declared: %v", err)
	}
	err := declaredTasks(nil, &taskIDParams{TaskID: "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32021 || !strings.Contains(string(je.Data), tasks.ExtensionID) {
		t.Errorf("not declared: %v", err)
	}
}
