package fromrecording

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/script"
)

// conversationOf reads a recording given as "DIR MESSAGE" lines (or
// "event KIND").
func conversationOf(t *testing.T, lines ...string) *conversation.Conversation {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"bin/s"}` + "\n")
	for i, l := range lines {
		dir, rest, _ := strings.Cut(l, " ")
		if dir == "event" {
			fmt.Fprintf(&b, `{"t_ms":%d,"event":%q}`+"\n", i, rest)
			continue
		}
		fmt.Fprintf(&b, `{"t_ms":%d,"dir":%q,"msg":%s}`+"\n", i, dir, rest)
	}
	rec, err := recording.Read(strings.NewReader(b.String()), recording.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := conversation.Read(rec, conversation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return conv
}

// fromLines writes the script of a recording given as "DIR MESSAGE" lines
// (or "event KIND"), with its warnings.
func fromLines(t *testing.T, lines ...string) (string, []Warning) {
	t.Helper()
	conv := conversationOf(t, lines...)
	src, warns, err := Write(conv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := script.ParseFile("t.mcp", src); err != nil {
		t.Fatalf("does not parse: %v\n%s", err, src)
	}
	_, body, _ := strings.Cut(string(src), "see docs/scripts.md.\n")
	return body, warns
}

func TestWhatCannotBeReplayed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
		warns int
	}{
		{"roots asked outside a call", []string{
			`s2c {"jsonrpc":"2.0","id":1,"method":"roots/list","params":{}}`,
			`c2s {"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///repo","name":"repo"}]}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, "\nroots \"file:///repo=repo\"\n\ncall_tool x\nassert_equals \"ok\"\n", 0},
		{"a call the client cancelled", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
			`c2s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, "\n# line 2 of the recording: the client cancelled tools/call slow: a script cannot cancel a call half-way\n# not replayed: call_tool slow\n\ncall_tool x\nassert_equals \"ok\"\n", 1},
		{"a task left running", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working"}}`,
			`event client-gone`,
		}, "\n# line 2 of the recording: tools/call rollout started task T, whose result is not in the recording: the client left (line 4) first\nstart_tool rollout\n", 1},
		{"a task the client cancelled after answering", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"taskId":"T","status":"input_required","inputRequests":{"d":{"method":"elicitation/create","params":{"message":"go on?"}}}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"T","inputResponses":{"d":{"action":"accept","content":{}}}}}`,
			`c2s {"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"T"}}`,
			`c2s {"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":5,"result":{"taskId":"T","status":"cancelled"}}`,
		}, "\n# the client answered before it cancelled the task; the script cancels it without the answers\nstart_tool rollout\ncancel_task\nget_task\nassert_task_status cancelled\n", 1},
		{"a task that failed", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"taskId":"T","status":"failed","error":{"code":-32001,"message":"disk full at 2026-12-03T10:00:00Z"}}}`,
		}, "\nexpect_error call_tool rollout\nassert_task_status failed\nassert_error_code -32001\nassert_match \"RPC error (-32001): disk full at {{timestamp}}\"\n", 0},
		{"a question outside any call", []string{
			`s2c {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"hi?"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, "# line 2 of the recording: the server sent elicitation/create outside any call: a script asks nothing outside its calls, so it is left out\n\ncall_tool x\nassert_equals \"ok\"\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warns := fromLines(t, tc.lines...)
			if got != tc.want {
				t.Errorf("script:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(warns) != tc.warns {
				t.Errorf("warnings %v, want %d", warns, tc.warns)
			}
		})
	}
}

// A script that would replay no call is not written: a recording cut short
// before its one call was answered would make a script of comments that
// passes without doing anything. The error says what became of the calls;
// of one call, once: its note is the error's reason and no warning.
func TestNothingReplayedIsAnError(t *testing.T) {
	const (
		slow   = `c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`
		cancel = `c2s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
		other  = `c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other"}}`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
		warns int
		count Counts
	}{
		{"cut short before the answer", []string{slow},
			"at line 2, tools/call slow has no result: the recording ends first; no script was written", 0, Counts{Commented: 1, NoResult: 1}},
		{"cancelled", []string{slow, cancel},
			"at line 2, the client cancelled tools/call slow: a script cannot cancel a call half-way; no script was written", 0, Counts{Commented: 1, Cancelled: 1}},
		{"both", []string{slow, cancel, other},
			"of its 2 calls, 1 got no result in the recording, 1 was cancelled by the client (the warnings say which), so a script of it would replay nothing; no script was written", 2, Counts{Commented: 2, NoResult: 1, Cancelled: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := conversationOf(t, tc.lines...)
			var counts Counts
			src, warns, err := Write(conv, Options{Counts: &counts})
			want := "the recording holds no call a script can replay: " + tc.want
			if !errors.Is(err, ErrNothing) || err.Error() != want || src != nil {
				t.Errorf("Write = %q, %v\nwant the error %s", src, err, want)
			}
			if len(warns) != tc.warns {
				t.Errorf("warnings %v, want %d", warns, tc.warns)
			}
			if counts != tc.count {
				t.Errorf("counts %+v, want %+v", counts, tc.count)
			}
		})
	}
}

func TestWhyCommented(t *testing.T) {
	for _, tc := range []struct {
		c    Counts
		want string
	}{
		{Counts{Commented: 1, NoResult: 1}, "it got no result in the recording"},
		{Counts{Commented: 1, Cancelled: 1}, "the client cancelled it"},
		{Counts{Commented: 3, NoResult: 1, Cancelled: 2}, "1 got no result in the recording, 2 were cancelled by the client"},
		{Counts{}, ""},
	} {
		if got := tc.c.WhyCommented(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}

// An answer recorded without a field whose schema has a default (a client
// that fills in none) is written with exact, so that the script sends it
// as it was recorded; one that holds every such field is written as
// before, and so is one to a form without defaults.
func TestRecordedAnswerSentExactly(t *testing.T) {
	const schema = `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":42}},"required":["name"]}`
	ask := func(content string) string {
		body, _ := fromLines(t,
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			`s2c {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"who?","requestedSchema":`+schema+`}}`,
			`c2s {"jsonrpc":"2.0","id":0,"result":{"action":"accept"`+content+`}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "elicit_response") {
				return l
			}
		}
		return body
	}
	for content, want := range map[string]string{
		`,"content":{"name":"Ann"}`:        `elicit_response accept '{"name":"Ann"}' exact`,
		`,"content":{"name":"it's"}`:       `elicit_response accept {"name":"it's"} exact`,
		``:                                 `elicit_response accept exact`,
		`,"content":{"name":"Ann","n":42}`: `elicit_response accept '{"name":"Ann","n":42}'`,
	} {
		if got := ask(content); got != want {
			t.Errorf("answer %s: %s, want %s", content, got, want)
		}
	}
}

// What a script checks of a call's result comes from the call's last
// request, whichever way the call took several (a retry after the URL
// error -32042, a round of input_required, a task): a call whose last
// request got no answer has no result, and the script checks nothing of
// it (docs/record.md, "What a script cannot replay"), not what an earlier
// request of it got.
func TestACallEndsAsItsLastRequest(t *testing.T) {
	const (
		init2025 = `c2s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"c","version":"1"}}}`
		inited   = `s2c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`
		call     = `c2s {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"link","arguments":{"url":"https://example.com/consent"}}}`
		urlError = `s2c {"jsonrpc":"2.0","id":2,"error":{"code":-32042,"message":"authorize first","data":{"elicitations":[{"mode":"url","url":"https://example.com/a","message":"Open it, then retry.","elicitationId":"e1"}]}}}`
		asked    = `s2c {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"url","url":"https://example.com/consent","message":"Open this.","elicitationId":"e2"}}`
		cmd      = `call_tool link url:"https://example.com/consent"`
		checks   = "assert_elicited \"Open it, then retry.\" mode=url\nassert_question '{\"url\":\"https://example.com/a\"}'\n"
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // the lines of the call, without comments
	}{
		{"a retry after the URL error waits for its question", []string{init2025, inited, fmt.Sprintf(call, 2), urlError, fmt.Sprintf(call, 3), asked},
			"elicit_response accept\nelicit_response cancel\n" + cmd + "\n" + checks +
				"assert_elicited \"Open this.\" mode=url\nassert_question '{\"url\":\"https://example.com/consent\"}'\nassert_elicited_count 2\n"},
		{"the client left during a retry after the URL error", []string{init2025, inited, fmt.Sprintf(call, 2), urlError, fmt.Sprintf(call, 3), "event client-gone"},
			"elicit_response accept\n" + cmd + "\n" + checks + "assert_elicited_count 1\n"},
		{"a retry after the URL error ended", []string{init2025, inited, fmt.Sprintf(call, 2), urlError, fmt.Sprintf(call, 3),
			`s2c {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}`},
			"elicit_response accept\n" + cmd + "\n" + checks + "assert_elicited_count 1\n# assert_equals \"done\"\n"},
		{"no retry after the URL error", []string{init2025, inited, fmt.Sprintf(call, 2), urlError},
			"elicit_response cancel\nexpect_error " + cmd + "\n" + checks + "assert_elicited_count 1\nassert_error_code -32042\nassert_match \"RPC error (-32042): authorize first\"\n"},
		{"a round of input_required waits", []string{
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s1","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object","properties":{}}}}}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","requestState":"s1","inputResponses":{"a":{"action":"accept","content":{}}}}}`},
			"elicit_response a=accept '{}'\ncall_tool deploy\nassert_elicited \"Sure?\" key=a mode=form\nassert_question key=a '{\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}'\nassert_elicited_count 1\n"},
		{"a task of 2025-11-25 waits for its question", []string{init2025, inited,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"survey","task":{}}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":1000}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"t1"}}`,
			`s2c {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`},
			"start_tool survey\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := fromLines(t, tc.lines...)
			var got strings.Builder
			for _, l := range strings.Split(body, "\n") {
				if l != "" && (!strings.HasPrefix(l, "#") || strings.HasPrefix(l, "# assert_")) {
					got.WriteString(l + "\n")
				}
			}
			if got.String() != tc.want {
				t.Errorf("script:\n%s\nwant:\n%s\nwhole:\n%s", got.String(), tc.want, body)
			}
		})
	}
}
