package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// params.task is moved into _meta on its way in, unless the params hold
// a key twice or keys that differ in case only: rewritten, those would
// pass the checks after it as one.
func TestMovedTaskParam(t *testing.T) {
	moved, ok := movedTaskParam(json.RawMessage(`{"name":"survey","task":{"ttl":5},"_meta":{"a":1}}`))
	if !ok || string(moved) != `{"_meta":{"a":1,"askback.standin/task":{"ttl":5}},"name":"survey"}` {
		t.Errorf("moved %s, %v", moved, ok)
	}
	for _, in := range []string{
		`{"name":"survey"}`,
		`{"name":"survey","task":{},"task":{}}`,
		`{"name":"survey","task":{},"Task":{}}`,
		`not json`,
	} {
		if got, ok := movedTaskParam(json.RawMessage(in)); ok || string(got) != in {
			t.Errorf("%s: moved to %s", in, got)
		}
	}
}

func TestTaskBodies(t *testing.T) {
	var got []byte
	h := taskBodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","task":{}}}`,
			`{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"askback.standin/task":{}},"name":"s"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","task":{}},"id":2}`, ""},
		// The go-sdk matches keys as written: "Method" is no method to it.
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"s","task":{}}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t","task":{}}}`, ""},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader([]byte(c.in))))
		want := c.want
		if want == "" {
			want = c.in
		}
		if string(got) != want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.in, got, want)
		}
	}
	if !strings.Contains(string(got), "tasks/get") {
		t.Fatal("the handler was not reached")
	}
}

// A recorded task of 2025-11-25 served as a task of the extension (to a
// client of 2026-07-28): created working, its question until tasks/update answers
// it, then its recorded result; one the recording holds no end of fails
// with why.
func TestTask2025AsExtTask(t *testing.T) {
	x := &Exchange{Method: "tools/call", Name: "survey", Line: 3, Task: &Task2025{ID: "r1", Line: 4},
		Rounds: []*Round{{Questions: []*Question{{Line: 6, Key: "q1", Method: "elicitation/create", Params: json.RawMessage(`{"message":"Which?","requestedSchema":{"type":"object"}}`)}}}},
		Result: json.RawMessage(`{"content":[]}`), ResultLine: 9, Ended: true}
	tk := &extTask{id: "S1", x: x, rec: x.asExtTask(), answered: map[string]bool{}}
	if st := tk.rec.States[0]; st.Status != "working" {
		t.Errorf("created %+v, want working", st)
	}
	if got, want := shows(tk, 2), "input_required::q1, input_required::q1"; got != want {
		t.Fatalf("before the answer\n got %s\nwant %s", got, want)
	}
	tk.take(map[string]json.RawMessage{"q1": json.RawMessage(`{"action":"decline"}`)}, time.Unix(0, 0))
	if got, want := shows(tk, 2), `completed::{"content":[]}, completed::{"content":[]}`; got != want {
		t.Fatalf("after the answer\n got %s\nwant %s", got, want)
	}

	x.Ended, x.Result, x.Unended = false, nil, "the client left"
	tk = &extTask{id: "S2", x: x, rec: x.asExtTask(), answered: map[string]bool{"q1": true}}
	if got, want := shows(tk, 1), "failed:the client left"; got != want {
		t.Fatalf("unended\n got %s\nwant %s", got, want)
	}
	if g := tk.poll(time.Unix(0, 0)); g.Error == nil || !strings.Contains(g.Error.Message, "the recording holds no result of tools/call survey's task (line 3): the client left") {
		t.Errorf("unended: error %+v", g.Error)
	}
}

// surveyRecording is a recording of a server of 2025-11-25 whose survey
// runs only as a task, the call run as one; more is what comes after.
func surveyRecording(more ...string) string {
	text := header +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"surveyor","version":"1"}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"survey","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"survey","arguments":{"topic":"lunch"},"task":{}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t1","status":"working","statusMessage":"drafting"}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t1"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":4,"result":{"taskId":"t1","status":"input_required","statusMessage":"asking who comes"}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"t1"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"message":"Who?","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"a":"staff"}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":5,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"content":[{"type":"text","text":"sent to staff"}]}}}` + "\n"
	return text + strings.Join(more, "")
}

// A call of a tool that runs only as a task, without one (issue 37): as
// the recorded server answered such a call when the recording holds one
// (here a result, isError, as the TypeScript SDK's reference server
// answers), else -32600 naming the tool and saying it needs a task, never
// the go-sdk's "method not found" of tools/call.
func TestUntaskedCallOfTaskTool(t *testing.T) {
	refused := `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"survey","arguments":{"topic":"tea"}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"MCP error -32601: Tool survey requires task augmentation (taskSupport: 'required')"}],"isError":true}}}` + "\n"
	for _, c := range []struct {
		name, text, want string
		isError          bool
	}{
		{"own", surveyRecording(), `mcp-tester serve: tool "survey" needs a task: it runs only as a task`, false},
		{"recorded", surveyRecording(refused), "MCP error -32601: Tool survey requires task augmentation (taskSupport: 'required')", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := standin(t, script(t, c.text), Options{})
			s.readsTaskParam = true // as ServeStdio and Handler do
			cs := client(t, s, "2025-11-25", false, accept(map[string]any{"a": "staff"}))
			// Whatever the arguments: a call recorded, or one not.
			for _, topic := range []string{"lunch", "coffee"} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "survey", Arguments: map[string]any{"topic": topic}})
				if !c.isError {
					var we *jsonrpc.Error
					if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(we.Message, c.want) || strings.Contains(we.Message, "method not found") {
						t.Fatalf("%s: got %v, %v; want -32600 %q", topic, res, err, c.want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", topic, err)
				}
				if !res.IsError || text(t, res) != c.want {
					t.Errorf("%s: got %+v, want isError %q", topic, res, c.want)
				}
			}
			// Each refusal is a problem (review43 F9), even without
			// EveryCall: the recorded call (line 6) was not made as
			// recorded, its question never asked; the other is not
			// recorded with these params.
			var got []string
			for _, p := range s.Report().Problems {
				got = append(got, fmt.Sprintf("%s %d %s", p.Kind, p.Line, p.Detail))
			}
			if len(got) != 2 || !strings.HasPrefix(got[0], ProblemRefused+" 6 the call asks for no task, and the recording's call ran as a task") ||
				!strings.Contains(got[0], `its recorded question was never asked: "`) || !strings.HasPrefix(got[1], ProblemRefused+" 0 ") {
				t.Errorf("problems:\n%s\nwant two refused, the first at line 6", strings.Join(got, "\n"))
			}
		})
	}
}

// A recorded task of 2025-11-25 shows the status messages the server
// showed (issue 37), served as a task of either era, and none of the
// stand-in's own where the server showed none.
func TestTask2025StatusMessages(t *testing.T) {
	sc := script(t, surveyRecording())
	x := sc.Of("tools/call")[0]
	if got, want := fmt.Sprint(x.Task.Statuses), "[{working drafting 7} {input_required asking who comes 9}]"; got != want {
		t.Fatalf("statuses %s, want %s", got, want)
	}
	tk := &extTask{id: "S1", x: x, rec: x.asExtTask(), answered: map[string]bool{}}
	if got := tk.rec.States[0].Message; got != "drafting" {
		t.Errorf("working shows %q, want the recorded drafting", got)
	}
	if got, want := shows(tk, 1), "input_required:asking who comes:q1"; got != want {
		t.Errorf("extension task\n got %s\nwant %s", got, want)
	}
	s, _ := standin(t, sc, Options{})
	res, err := s.startTask2025("c", "", x)
	if err != nil {
		t.Fatal(err)
	}
	if st := res.(*taskCreateResult).Task; st.Status != "input_required" || st.StatusMessage != "asking who comes" {
		t.Errorf("task of 2025-11-25 created %+v, want input_required with the recorded message", st)
	}
	own := script(t, strings.ReplaceAll(strings.ReplaceAll(surveyRecording(), `,"statusMessage":"drafting"`, ""), `,"statusMessage":"asking who comes"`, ""))
	res, err = s.startTask2025("c", "", own.Of("tools/call")[0])
	if err != nil {
		t.Fatal(err)
	}
	if st := res.(*taskCreateResult).Task; st.StatusMessage != "" {
		t.Errorf("no message recorded, the task shows %q", st.StatusMessage)
	}
}

// A task of 2025-11-25 is its session's (issue 37), as the reference
// server keeps it: tasks/list of another session shows it not, and
// tasks/get, tasks/result and tasks/cancel of another session find none.
func TestTask2025OfItsSession(t *testing.T) {
	sc := script(t, surveyRecording())
	s, _ := standin(t, sc, Options{})
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	x := sc.Of("tools/call")[0]
	id := func(res mcp.Result) string { return res.(*taskCreateResult).Task.ID }
	mine, err := s.startTask2025("c", ss.ID(), x)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := s.startTask2025("c", "another-session", x)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.taskList(ctx, ss, &taskIDParams{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != id(mine) {
		t.Fatalf("tasks/list: %+v, %v; want the session's task %s alone", list, err, id(mine))
	}
	if _, err := s.taskGet(ctx, ss, &taskIDParams{TaskID: id(mine)}); err != nil {
		t.Errorf("tasks/get of its own: %v", err)
	}
	p := &taskIDParams{TaskID: id(theirs)}
	for method, call := range map[string]func() error{
		"tasks/get":    func() error { _, err := s.taskGet(ctx, ss, p); return err },
		"tasks/result": func() error { _, err := s.taskResult(ctx, ss, p); return err },
		"tasks/cancel": func() error { _, err := s.taskCancel(ctx, ss, p); return err },
	} {
		var we *jsonrpc.Error
		if err := call(); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "in this session") {
			t.Errorf("%s of another session's task: %v, want -32602 saying it is another session's", method, err)
		}
	}
	if st := s.tasks.get(id(theirs)).(*task2025).status(); st.Status != "input_required" {
		t.Errorf("another session's cancel changed the task: %+v", st)
	}
}
