package trace_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/trace"
	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const secretState = "c2VjcmV0LXN0YXRlLXZhbHVl.SIGNATURE"

// askServer has one tool that asks once, carrying a requestState.
func askServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, ok := req.Params.InputResponses["q"]; !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{
				Mode: "form", Message: "Sure?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
			}}, RequestState: secretState}, nil
		}
		if req.Params.RequestState != secretState {
			return nil, &jsonRPCError{}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	return s
}

type jsonRPCError struct{}

func (*jsonRPCError) Error() string { return "state changed" }

// run calls the ask tool twice by hand (the second time with the answer
// and the state), with the client's transport traced.
func run(t *testing.T, opts trace.Options) []trace.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := askServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var buf bytes.Buffer
	rec := trace.New(&buf, opts)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := c.Connect(ctx, wire.Watch(ct, nil, rec.Observe), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() {
		t.Fatalf("round 1 did not ask: %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"q": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}})
	if err != nil || res.NeedsInput() {
		t.Fatalf("round 2: %v %+v", err, res)
	}
	if raw := rec.LastResult("tools/call"); !strings.Contains(string(raw), `"done"`) {
		t.Errorf("LastResult = %s, want the raw final result", raw)
	}
	return decode(t, buf.String())
}

func decode(t *testing.T, s string) []trace.Event {
	t.Helper()
	var out []trace.Event
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e trace.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("trace line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func toolCalls(evs []trace.Event) (reqs, resps []trace.Event) {
	for _, e := range evs {
		if e.Method != "tools/call" {
			continue
		}
		if e.Kind == trace.KindRequest {
			reqs = append(reqs, e)
		} else {
			resps = append(resps, e)
		}
	}
	return
}

func TestTransportShowsBothRoundsWithIDsAndHidesState(t *testing.T) {
	evs := run(t, trace.Options{})
	all, _ := json.Marshal(evs)
	if strings.Contains(string(all), secretState) {
		t.Fatalf("the trace shows the requestState:\n%s", all)
	}
	reqs, resps := toolCalls(evs)
	if len(reqs) != 2 || len(resps) != 2 {
		t.Fatalf("want 2 tools/call requests and 2 responses, got %d and %d", len(reqs), len(resps))
	}
	for i, r := range reqs {
		if r.Dir != trace.Out || r.ID == nil {
			t.Errorf("request %d: dir %q id %v, want out with an id", i, r.Dir, r.ID)
		}
		if resps[i].Dir != trace.In || resps[i].Latency == nil || resps[i].ID != r.ID {
			t.Errorf("response %d: %+v does not answer request id %v", i, resps[i], r.ID)
		}
	}
	if reqs[0].ID == reqs[1].ID {
		t.Errorf("both rounds used id %v", reqs[0].ID)
	}
	note := trace.StateNote(secretState)
	if !strings.Contains(string(resps[0].Result), note) || !strings.Contains(string(reqs[1].Params), note) {
		t.Errorf("the state should show as %q in round 1's result and round 2's params:\n%s\n%s", note, resps[0].Result, reqs[1].Params)
	}
	if !strings.Contains(string(resps[0].Result), "input_required") || !strings.Contains(string(reqs[1].Params), "inputResponses") {
		t.Errorf("round 1 should show input_required and round 2 the answers")
	}
}

func TestTransportShowStateShowsIt(t *testing.T) {
	evs := run(t, trace.Options{ShowState: true})
	all, _ := json.Marshal(evs)
	if !strings.Contains(string(all), secretState) {
		t.Fatal("with ShowState the trace should carry the requestState")
	}
}

func TestRedactNestedAndOdd(t *testing.T) {
	for _, tc := range []struct{ in, wantGone string }{
		{`{"requestState":"abc"}`, `"abc"`},
		{`{"a":[{"b":{"requestState":"xyz"}}]}`, `"xyz"`},
		{`{"requestState":"abc", "x": "requestState"}`, `"abc"`},
		{`not json requestState=abc`, `abc`},
		{`{"requestState":{"token":"hidden-in-an-object"}}`, `hidden-in-an-object`},
		{`{"structuredContent":{"requestState":["x","leak"]}}`, `leak`},
		{`{"request\u0053tate":"escaped-key"}`, `escaped-key`},
	} {
		got := string(trace.Redact(json.RawMessage(tc.in), false))
		if strings.Contains(got, tc.wantGone) {
			t.Errorf("Redact(%s) = %s still shows %s", tc.in, got, tc.wantGone)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("Redact(%s) = %s is not JSON", tc.in, got)
		}
	}
}

func TestRedactHeaders(t *testing.T) {
	got := strings.Join(trace.RedactHeaders([]string{"Authorization: Bearer sekrit", "X-Api-Key: k3y", "Accept: text/plain", "X-Auth-Token: t0k",
		"apikey: ak1", "X-Goog-Api-Key: goog1", "Ocp-Apim-Subscription-Key: azure1", "x-functions-key: fn1",
		"X-Session: sess1", "X-Signature: sig1", "X-Password: pw1", "X-Anything: ghp_0123456789abcdef0123",
		"DPoP: pr00f", "DPoP-Nonce: n0nce", "X-Other: DPoP dp0p"}), "\n")
	for _, s := range []string{"sekrit", "k3y", "t0k", "ak1", "goog1", "azure1", "fn1", "sess1", "sig1", "pw1", "ghp_", "pr00f", "n0nce", "dp0p"} {
		if strings.Contains(got, s) {
			t.Errorf("RedactHeaders shows %q:\n%s", s, got)
		}
	}
	if !strings.Contains(got, "Accept: text/plain") {
		t.Errorf("an ordinary header was hidden:\n%s", got)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{`{"requestState":"abc"}`, `[{"requestState":1}]`, `{"a":{"requestState":"x"}}`, `requestState`, `{"requestState":`, `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := trace.Redact(json.RawMessage(s), false)
		if strings.Contains(s, "requestState") && !json.Valid(got) {
			t.Fatalf("Redact(%q) = %q is not JSON", s, got)
		}
		var v any
		if json.Unmarshal(got, &v) == nil {
			if m, ok := v.(map[string]any); ok {
				if st, ok := m["requestState"]; ok && !strings.HasPrefix(fmt.Sprint(st), "[requestState:") {
					t.Fatalf("Redact(%q) left the state: %q", s, got)
				}
			}
		}
	})
}

// What a server sends reaches the trace, which may be a terminal, with its
// control characters escaped and the JSON intact.
func TestTraceEscapesControls(t *testing.T) {
	var buf bytes.Buffer
	rec := trace.New(&buf, trace.Options{})
	rec.Info(map[string]any{"server": "evil\u009b2J\u202e\x7f"})
	line := buf.String()
	if strings.ContainsAny(line, "\u009b\u202e\x7f") {
		t.Errorf("the trace keeps raw controls: %q", line)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, line)
	}
	if got := v["info"].(map[string]any)["server"]; got != "evil\u009b2J\u202e\x7f" {
		t.Errorf("the value changed: %q", got)
	}
}

// An error a server tied to no request is shown in the trace as the server
// sent it: with "id": null when its id was null, without an id when it had
// none, its text escaped.
func TestUntiedErrorKeepsItsID(t *testing.T) {
	for _, c := range []struct{ sent, want string }{
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"gone \u001b[2J"}}`, `"kind":"error","id":null,"error":{"code":-32000,"message":"gone \u001b[2J"}`},
		{`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request"}}`, `"kind":"error","error":{"code":-32000,"message":"Bad Request"}`},
	} {
		msg, err := recording.DecodeMessage([]byte(c.sent))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		trace.New(&buf, trace.Options{}).Observe(false, msg)
		if line := buf.String(); !strings.Contains(line, c.want) {
			t.Errorf("the trace of %s:\n%s\nwant it to hold %s", c.sent, line, c.want)
		}
	}
}
