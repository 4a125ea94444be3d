package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/recording"
)

// rec builds a recording from lines written as "DIR MESSAGE" (c2s or s2c,
// optionally followed by @SESSION/STREAM) or "event KIND".
func rec(t *testing.T, transport string, lines ...string) *recording.Recording {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `{"format":%q,"started":"2026-12-03T10:00:00Z","transport":%q,"server":"bin/deployer"}`+"\n", recording.Format, transport)
	for i, l := range lines {
		dir, rest, _ := strings.Cut(l, " ")
		if dir == "event" {
			fmt.Fprintf(&b, `{"t_ms":%d,"event":%q}`+"\n", i, rest)
			continue
		}
		http := ""
		if strings.HasPrefix(rest, "@") {
			var where string
			where, rest, _ = strings.Cut(rest[1:], " ")
			session, stream, _ := strings.Cut(where, "/")
			http = fmt.Sprintf(`,"http":{"session":%q,"stream":%q}`, session, stream)
		}
		fmt.Fprintf(&b, `{"t_ms":%d,"dir":%q,"msg":%s%s}`+"\n", i, dir, rest, http)
	}
	r, err := recording.Read(strings.NewReader(b.String()), recording.ReadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return r
}

// summary writes what a conversation holds, one line per call.
func summary(c *Conversation) string {
	var b strings.Builder
	for _, call := range c.Calls {
		fmt.Fprintf(&b, "%s %s %s rounds=%d", call.Method, call.Name, call.Args, call.Rounds)
		for _, q := range call.Questions {
			var p struct{ Message string }
			_ = jsonUnmarshal(q.Params, &p)
			fmt.Fprintf(&b, " [%s %q → %s]", q.Key, p.Message, q.Answer)
		}
		switch {
		case call.Err != nil:
			fmt.Fprintf(&b, " error %d", call.Err.Code)
		case call.Result != nil:
			fmt.Fprintf(&b, " result %s", call.Result)
		case call.Cancelled:
			b.WriteString(" cancelled")
		case !call.Ended:
			b.WriteString(" open")
		}
		if call.Task != nil {
			fmt.Fprintf(&b, " task %s %s cancel=%v", call.Task.ID, call.Task.Status, call.Task.CancelledByClient)
		}
		b.WriteString("\n")
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note %d: %s\n", n.Line, n.Text)
	}
	return b.String()
}

const (
	elicitA = `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"mode":"form","message":"%s","requestedSchema":{"type":"object","properties":{}}}}`
)

func TestConcurrentCallsOverHTTPKeepTheirQuestions(t *testing.T) {
	r := rec(t, recording.TransportHTTP,
		`c2s @s1/post-1 {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`s2c @s1/post-1 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		`c2s @s1/post-2 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"a"}}}`,
		`c2s @s1/post-3 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"b"}}}`,
		`s2c @s1/post-3 `+fmt.Sprintf(elicitA, 0, "for b"),
		`s2c @s1/post-2 `+fmt.Sprintf(elicitA, 1, "for a"),
		`c2s @s1/post-4 {"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"x":"a"}}}`,
		`c2s @s1/post-5 {"jsonrpc":"2.0","id":0,"result":{"action":"decline"}}`,
		`s2c @s1/post-3 {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"b done"}]}}`,
		`s2c @s1/post-2 {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a done"}]}}`,
	)
	c, err := Read(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `tools/call deploy {"service":"a"} rounds=1 [ "for a" → {"action":"accept","content":{"x":"a"}}] result {"content":[{"type":"text","text":"a done"}]}
tools/call deploy {"service":"b"} rounds=1 [ "for b" → {"action":"decline"}] result {"content":[{"type":"text","text":"b done"}]}
`
	if got := summary(c); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Join(c.Protocols, ",") != "2025-11-25" {
		t.Errorf("protocols %v", c.Protocols)
	}
}

func TestConcurrentRoundsFindTheirCall(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	ask := func(id int, svc string) string {
		return fmt.Sprintf(`s2c {"jsonrpc":"2.0","id":%d,"result":{"resultType":"input_required","inputRequests":{"target":{"method":"elicitation/create","params":{"mode":"form","message":"where for %s?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"[requestState: 20 bytes]"}}`, id, svc)
	}
	r := rec(t, recording.TransportHTTP,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"deploy","arguments":{"service":"a"}}}`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,"name":"deploy","arguments":{"service":"b"}}}`,
		ask(2, "b"),
		ask(1, "a"),
		`c2s {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+meta+`,"name":"deploy","arguments":{"service":"b"},"inputResponses":{"target":{"action":"accept","content":{"env":"b"}}},"requestState":"[requestState: 20 bytes]"}}`,
		`c2s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{`+meta+`,"name":"deploy","arguments":{"service":"a"},"inputResponses":{"target":{"action":"decline"}},"requestState":"[requestState: 20 bytes]"}}`,
		`s2c {"jsonrpc":"2.0","id":4,"result":{"content":[],"resultType":"complete"}}`,
		`s2c {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}`,
		`c2s {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+meta+`,"name":"deploy","arguments":{"service":"c"}}}`,
		`s2c {"jsonrpc":"2.0","id":5,"result":{"content":[],"resultType":"complete"}}`,
	)
	c, err := Read(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `tools/call deploy {"service":"a"} rounds=2 [target "where for a?" → {"action":"decline"}] result {"content":[],"resultType":"complete"}
tools/call deploy {"service":"b"} rounds=2 [target "where for b?" → {"action":"accept","content":{"env":"b"}}] error -32602
tools/call deploy {"service":"c"} rounds=1 result {"content":[],"resultType":"complete"}
`
	if got := summary(c); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWhatAReplayCannotDo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"two calls waiting over stdio", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`,
			`s2c ` + fmt.Sprintf(elicitA, 7, "whose?"),
			`c2s {"jsonrpc":"2.0","id":7,"result":{"action":"cancel"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
		}, `tools/call a  rounds=1 [ "whose?" → {"action":"cancel"}] result {"content":[]}
tools/call b  rounds=1 result {"content":[]}
note 4: elicitation/create came while 2 calls were waiting for their results and nothing says whose it is: the script gives it to the earliest, tools/call a (line 2)
`},
		{"the client leaves mid-question", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"sure?"}}}}}`,
			`event client-gone`,
		}, `tools/call a  rounds=1 [k "sure?" → ] open
note 2: tools/call a has no result: the client left (line 4) first
note 3: the question got no answer: the client left (line 4) first
`},
		{"a cancelled call, a request a script cannot send", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
			`c2s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"completion":{"values":[]}}}`,
		}, `tools/call slow  rounds=1 cancelled
note 2: the client cancelled tools/call slow: a script cannot cancel a call half-way
note 4: the client sent completion/complete, which a script cannot send: left out
`},
		{"a task the client cancels", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T1","status":"working"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"taskId":"T1","status":"input_required","inputRequests":{"d":{"method":"elicitation/create","params":{"message":"go on?"}}}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":3,"result":{"taskId":"T1","status":"input_required","inputRequests":{"d":{"method":"elicitation/create","params":{"message":"go on?"}}}}}`,
			`c2s {"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":4,"result":{}}`,
			`c2s {"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":5,"result":{"taskId":"T1","status":"cancelled"}}`,
		}, `tools/call rollout  rounds=1 [d "go on?" → ] task T1 cancelled cancel=true
`},
		{"a tasks/get after the task ended", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T1","status":"working"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"taskId":"T1","status":"completed","result":{"content":[]}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1"}}`,
			`s2c {"jsonrpc":"2.0","id":3,"result":{"taskId":"T1","status":"working"}}`,
		}, `tools/call rollout  rounds=1 result {"content":[]} task T1 completed cancel=false
`},
		{"a task of another recording", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"T9"}}`,
		}, `note 2: tasks/get for task "T9", which no call of the recording started: left out
`},
		{"answers without their question", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","inputResponses":{"k":{"action":"accept"}},"requestState":"[requestState: 3 bytes]"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		}, `tools/call a  rounds=1 result {"content":[]}
note 2: tools/call a carries answers to a question the recording does not hold (it began after the question was asked?): the script calls it afresh
`},
		{"a URL error then a retry", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{}}}`,
			`s2c {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","message":"pay here","url":"https://x/pay","elicitationId":"e1"}]}}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","arguments":{}}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
		}, `tools/call pay {} rounds=2 [ "pay here" → {"action":"accept"}] result {"content":[]}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Read(rec(t, recording.TransportStdio, tc.lines...), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(c); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestListsAreCallsWhenAsked(t *testing.T) {
	lines := []string{
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}`,
		`s2c {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}]}}`,
	}
	c, err := Read(rec(t, recording.TransportStdio, lines...), Options{})
	if err != nil || len(c.Calls) != 0 || c.Lists != 2 {
		t.Fatalf("without Lists: %v, %d calls, %d lists", err, len(c.Calls), c.Lists)
	}
	c, err = Read(rec(t, recording.TransportStdio, lines...), Options{Lists: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(c); got != `tools/list   rounds=2 result {"tools":[{"name":"a"},{"name":"b"}]}`+"\n" {
		t.Errorf("got:\n%s", got)
	}
}

func TestAnotherProtocolVersionIsRefused(t *testing.T) {
	for _, line := range []string{
		`c2s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"},"name":"x"}}`,
	} {
		_, err := Read(rec(t, recording.TransportStdio, line), Options{})
		var e *recording.Error
		if !errors.As(err, &e) || e.Line != 2 || !strings.Contains(err.Error(), `the conversation is in protocol version "2099-01-01", which this mcp-tester does not speak (it speaks 2026-07-28, 2025-11-25`) {
			t.Errorf("err = %v", err)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
