package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskFake is a TaskConn over the in-process test server: its tools answer
// directly, except "job", which the fake runs as a task. A job is working
// for its first two reads, then waits for an answer to its question
// "decision"; after a cancel it is read once more as input_required (the
// server ends it asynchronously), then cancelled. The job "stuck" stays
// working.
type taskFake struct {
	*sdkConn
	mu    sync.Mutex
	next  int
	tasks map[string]*fakeTask
}

type fakeTask struct {
	tool      string
	gets      int
	status    string
	cancelled bool
}

var errFakeCancelled = errors.New("the task was cancelled")

func fakeConnect() func(ctx context.Context) (Conn, error) {
	return func(ctx context.Context) (Conn, error) {
		c, err := connectInMemory(ctx, newTestServer())
		if err != nil {
			return nil, err
		}
		return &taskFake{sdkConn: c, tasks: map[string]*fakeTask{}}, nil
	}
}

func (f *taskFake) start(tool string) *Outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprintf("T%d", f.next)
	f.tasks[id] = &fakeTask{tool: tool, status: "working"}
	raw, _ := json.Marshal(map[string]any{"resultType": "task", "taskId": id, "status": "working"})
	return &Outcome{Task: &TaskState{ID: id, Status: "working"}, Raw: raw}
}

func isTaskTool(name string) bool { return name == "job" || name == "stuck" }

func (f *taskFake) CallTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error) {
	if !isTaskTool(name) {
		return f.sdkConn.CallTool(ctx, name, args, answers)
	}
	return f.WaitTask(ctx, f.start(name).Task.ID, answers)
}

func (f *taskFake) StartTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error) {
	if !isTaskTool(name) {
		return f.sdkConn.CallTool(ctx, name, args, answers)
	}
	out := f.start(name)
	out.Unused = answers
	return out, nil
}

func (f *taskFake) GetTask(ctx context.Context, id string) (*Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tasks[id]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no task " + id}
	}
	t.gets++
	switch {
	case t.tool == "stuck":
	case t.cancelled && t.status == "input_required":
		t.status = "cancelled" // this read still sees input_required
		return &Outcome{Task: &TaskState{ID: id, Status: "input_required"}, Raw: []byte(`{"status":"input_required"}`)}, nil
	case t.status == "working" && t.gets > 2:
		t.status = "input_required"
	}
	msg := ""
	if t.status == "input_required" {
		msg = "Waiting for an answer: continue?"
	}
	raw, _ := json.Marshal(map[string]any{"taskId": id, "status": t.status, "statusMessage": msg})
	return &Outcome{Task: &TaskState{ID: id, Status: t.status, StatusMessage: msg}, Raw: raw}, nil
}

func (f *taskFake) CancelTask(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tasks[id]
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no task " + id}
	}
	if t.status == "working" {
		t.status = "input_required"
	}
	t.cancelled = true
	return nil
}

// WaitTask asks the task's one question (key "decision") with the first
// answer for it, then ends as the answer says.
func (f *taskFake) WaitTask(ctx context.Context, id string, answers []answer.Spec) (*Outcome, error) {
	f.mu.Lock()
	t, ok := f.tasks[id]
	f.mu.Unlock()
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no task " + id}
	}
	out := &Outcome{Task: &TaskState{ID: id}}
	if t.cancelled {
		out.Task.Status, out.Unused = "cancelled", answers
		return out, errFakeCancelled
	}
	if t.tool == "stuck" {
		<-ctx.Done()
		out.Task.Status, out.Unused = "working", answers
		return out, ctx.Err()
	}
	ans := &mcp.ElicitResult{Action: "decline"}
	queue := slices.Clone(answers)
	if i := slices.IndexFunc(queue, func(a answer.Spec) bool { return a.Key == "" || a.Key == "decision" }); i >= 0 {
		ans = &mcp.ElicitResult{Action: queue[i].Action, Content: queue[i].Content}
		queue = slices.Delete(queue, i, i+1)
	}
	out.Unused = queue
	out.Questions = []exchange.Entry{{Key: "decision", Round: 1, Params: &mcp.ElicitParams{Mode: "form", Message: "Half-way: continue?"}, Answer: ans}}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ans.Action == "cancel" {
		t.status, out.Task.Status = "failed", "failed"
		return out, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "stopped"}
	}
	t.status, out.Task.Status = "completed", "completed"
	out.Result = textResult(fmt.Sprintf("job %s ended: %s %v", id, ans.Action, ans.Content["decision"]))
	return out, nil
}

// TestTaskCommands runs the task commands against the fake, once passing
// and once failing, and checks the verdict and its explanation.
func TestTaskCommands(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		plain     bool   // use a Conn that cannot drive tasks
		fail      int    // the line that must fail; 0: none
		msg       string // part of the failure's explanation
	}{
		{name: "call_tool waits for a task", src: "elicit_response accept '{\"decision\": \"continue\"}'\ncall_tool job\nassert_elicited \"continue?\" key=decision action=accept\nassert_contains \"ended: accept continue\"\nassert_task_status completed"},
		{name: "call_tool on a failed task", src: "elicit_response cancel\nexpect_error call_tool job\nassert_task_status failed\nassert_error_code -32603"},
		{name: "status differs", src: "call_tool job\nassert_task_status failed", fail: 2, msg: "task T1 of call_tool (line 1) ended completed"},
		{name: "direct call is no task", src: "call_tool quiet\nassert_task_status completed", fail: 2, msg: "call_tool (line 1) did not run as a task: the server answered directly"},
		{name: "ping is no task", src: "ping\nassert_task_status completed", fail: 2, msg: "ping (line 1) did not run as a task: only call_tool, start_tool, get_task and wait_task report one"},
		{name: "nothing before", src: "assert_task_status completed", fail: 1, msg: "assert_task_status needs a command before it"},
		{name: "start, read, cancel", src: "start_tool job\nassert_task_status working\nget_task\nassert_task_status input_required\nassert_contains \"Waiting for an answer\"\ncancel_task\nget_task\nassert_task_status cancelled"},
		{name: "cancel_task reports no status", src: "start_tool job\ncancel_task\nassert_task_status cancelled", fail: 3, msg: "cancel_task (line 2) does not report the status of task T1; run get_task to read it"},
		{name: "start then wait", src: "start_tool job\nelicit_response accept '{\"decision\": \"rollback\"}'\nget_task\nassert_task_status input_required\nwait_task\nassert_elicited key=decision action=accept\nassert_contains \"ended: accept rollback\"\nassert_task_status completed"},
		{name: "wait by id", src: "start_tool job\nset_var id $.taskId\nstart_tool job\nelicit_response accept '{\"decision\": \"go\"}'\nwait_task $id\nassert_contains \"job T1 ended\"\nget_task\nassert_task_status completed"},
		{name: "wait on a cancelled task", src: "start_tool job\ncancel_task\nexpect_error wait_task\nassert_task_status cancelled"},
		{name: "answer before start_tool", src: "elicit_response accept '{}'\nstart_tool job\nwait_task", fail: 1, msg: "the answer was never used: start_tool (line 2) started task T1, whose questions come later; write the answer after start_tool, for wait_task"},
		{name: "wait_task unused answer", src: "start_tool job\nelicit_response accept '{}'\nelicit_response decline\nwait_task", fail: 3, msg: "the answer was never used: the server asked only 1 question(s) during wait_task (line 4)"},
		{name: "answers skip get_task", src: "start_tool job\nelicit_response decline\nget_task\ncancel_task\nexpect_error wait_task", fail: 2, msg: "the answer was never used: the server asked nothing during wait_task (line 5)"},
		{name: "get_task without a task", src: "call_tool quiet\nget_task", fail: 2, msg: "get_task has no task to act on: no start_tool or call_tool before it ran as a task"},
		{name: "start_tool answered directly", src: "elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\nstart_tool deploy service:a\nassert_contains \"to staging\"\nwait_task", fail: 4, msg: "wait_task has no task to act on"},
		{name: "start_tool checks arguments", src: "start_tool args colour:red", fail: 1, msg: `unknown argument "colour" for tool args`},
		{name: "unknown task", src: "expect_error get_task NOPE\nassert_error_code -32602\nexpect_error cancel_task NOPE"},
		{name: "script errors are not hidden", src: "expect_error wait_task", fail: 1, msg: "wait_task has no task to act on"},
		{name: "get_task stops at the time limit", src: "start_tool stuck\ntimeout 60 get_task\nassert_task_status working"},
		{name: "wait_task times out", src: "start_tool stuck\nexpect_error timeout 30 wait_task\nassert_task_status working"},
		{name: "plain Conn", plain: true, src: "start_tool quiet", fail: 1, msg: "start_tool needs a connection that drives tasks"},
		{name: "plain Conn call_tool", plain: true, src: "call_tool quiet\nassert_task_status completed", fail: 2, msg: "did not run as a task"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.ReplaceAll(tc.src, "`", "'")
			opts := RunOptions{Connect: fakeConnect()}
			if tc.plain {
				opts.Connect = testConnect()
			}
			rep, out := runText(t, "k.mcp", src, opts)
			steps := rep.Scripts[0].Steps
			if n := strings.Count(src, "\n") + 1; len(steps) != n {
				t.Fatalf("%d steps for %d lines:\n%s", len(steps), n, out)
			}
			for _, st := range steps {
				if st.Line == tc.fail {
					if st.Passed || !strings.Contains(st.Message, tc.msg) {
						t.Errorf("line %d: passed=%v message %q; want a failure with %q\n%s", st.Line, st.Passed, st.Message, tc.msg, out)
					}
				} else if !st.Passed {
					t.Errorf("line %d failed: %s\n%s", st.Line, st.Message, out)
				}
			}
		})
	}
}

// TestTaskNotes checks what the task commands print.
func TestTaskNotes(t *testing.T) {
	_, out := runText(t, "n.mcp", "start_tool job\nget_task\ncancel_task\nget_task\nassert_task_status completed\n", RunOptions{Connect: fakeConnect()})
	for _, want := range []string{
		"  ✓ start_tool job (line 1)\n      task T1: working\n",
		"  ✓ get_task (line 2)\n      task T1: input_required – Waiting for an answer: continue?\n",
		"  ✓ cancel_task (line 3)\n      cancel requested for task T1\n",
		"  ✓ get_task (line 4)\n      task T1: cancelled\n",
		"  ✗ assert_task_status completed (line 5)\n      task T1 of get_task (line 4) is cancelled\n      expected: task status completed\n      actual:   cancelled\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s---- output:\n%s", want, out)
		}
	}
}
