package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/reqstate"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// load reads a recording of testdata as a script.
func load(t testing.TB, name string) *Script {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return script(t, string(b))
}

func script(t testing.TB, text string) *Script {
	t.Helper()
	rec, err := recording.Read(strings.NewReader(text), recording.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(rec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// standin serves a script to one in-memory client, and returns the
// stand-in and the log of its problems.
func standin(t testing.TB, sc *Script, opts Options) (*Standin, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	opts.Log = &log
	s, err := New(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, &log
}

// client connects a go-sdk client of the given protocol to s, answering
// elicitations with answer (nil: the client declares no elicitation) and
// driving the rounds of input_required itself when manual is set.
func client(t testing.TB, s *Standin, protocol string, manual bool, answer func(*mcp.ElicitParams) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	opts := &mcp.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return answer(req.Params), nil
		}
	}
	if manual {
		// The test answers in the requests it sends: it declares forms.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		opts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func accept(content map[string]any) func(*mcp.ElicitParams) *mcp.ElicitResult {
	return func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: content}
	}
}

var production = map[string]any{"environment": "production", "confirm": true}

func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Each recording serves a client of each era: the question asked as the
// client's era expects, the recorded result, and the answer matched.
func TestServeBothEras(t *testing.T) {
	for _, rec := range []string{"deploy-2026.jsonl", "deploy-2025.jsonl"} {
		for _, proto := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(rec+"/"+proto, func(t *testing.T) {
				s, log := standin(t, load(t, rec), Options{})
				var asked []string
				cs := client(t, s, proto, false, func(p *mcp.ElicitParams) *mcp.ElicitResult {
					asked = append(asked, p.Message)
					return &mcp.ElicitResult{Action: "accept", Content: production}
				})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "Rolling out auth 2.4.1 to production." {
					t.Errorf("result %q", got)
				}
				if len(asked) != 1 || asked[0] != "Roll out auth version 2.4.1 – where to?" {
					t.Errorf("asked %q", asked)
				}
				r := s.Report()
				if !r.OK || r.Checked != 1 || r.Matched != 1 {
					t.Errorf("report %+v\nlog:\n%s", r, log)
				}
			})
		}
	}
}

// A wrong answer is reported with the request, the key and both answers;
// the client still gets the recorded result. With AnswersSchema, the same
// answer fits the question and passes.
func TestWrongAnswerReported(t *testing.T) {
	staging := map[string]any{"environment": "staging", "confirm": true}
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			s, log := standin(t, load(t, "deploy-2026.jsonl"), Options{})
			cs := client(t, s, proto, false, accept(staging))
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "Rolling out auth 2.4.1 to production." {
				t.Errorf("result %q", got)
			}
			r := s.Report()
			if r.OK || len(r.Problems) != 1 {
				t.Fatalf("report %+v", r)
			}
			p := r.Problems[0]
			if p.Kind != ProblemAnswer || p.Key != "target" || p.Request != "tools/call deploy" || p.Line != 6 {
				t.Errorf("problem %+v", p)
			}
			if string(p.Recorded) != `{"action":"accept","content":{"confirm":true,"environment":"production"}}` ||
				string(p.Got) != `{"action":"accept","content":{"confirm":true,"environment":"staging"}}` {
				t.Errorf("recorded %s, got %s", p.Recorded, p.Got)
			}
			want := `mcp-tester serve: answer: tools/call deploy (line 6), question "target": the answer differs from the recorded one: recorded {"action":"accept","content":{"confirm":true,"environment":"production"}}, got {"action":"accept","content":{"confirm":true,"environment":"staging"}}`
			if !strings.Contains(log.String(), want) {
				t.Errorf("log:\n%s\nwant a line\n%s", log, want)
			}

			s, _ = standin(t, load(t, "deploy-2026.jsonl"), Options{Answers: AnswersSchema})
			cs = client(t, s, proto, false, accept(staging))
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}}); err != nil {
				t.Fatal(err)
			}
			if r := s.Report(); !r.OK || r.Matched != 1 {
				t.Errorf("schema mode: %+v", r)
			}
		})
	}
}

// In schema mode an answer that does not fit the question is reported.
func TestSchemaMode(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{Answers: AnswersSchema})
	cs := client(t, s, "2026-07-28", true, nil)
	ctx := context.Background()
	args := map[string]any{"service": "auth"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "moon"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Report()
	if r.OK || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Detail, `field "environment"`) {
		t.Errorf("report %+v", r)
	}
}

// Defaults of the schema count as given: a recorded answer without the
// defaulted field matches one that gives it.
func TestDefaultsCompared(t *testing.T) {
	q := &Question{Method: "elicitation/create", Key: "target",
		Params: json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"environment":{"type":"string","default":"staging"},"confirm":{"type":"boolean"}}}}`),
		Answer: json.RawMessage(`{"action":"accept","content":{"confirm":true}}`)}
	if v := checkAnswer(AnswersExact, q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "environment": "staging"}}); !v.ok {
		t.Errorf("defaults: %+v", v)
	}
	if v := checkAnswer(AnswersExact, q, &mcp.ElicitResult{Action: "decline"}); v.ok {
		t.Errorf("decline for accept passed")
	}
	// Numbers by value: 1 and 1.0 are the same answer.
	q.Answer = json.RawMessage(`{"action":"accept","content":{"n":1.0}}`)
	if v := checkAnswer(AnswersExact, q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 1}}); !v.ok {
		t.Errorf("1 and 1.0: %+v", v)
	}
}

// The stand-in's requestState is sealed, bound to the request and single
// use: tampered, replayed and foreign states get reqstate's neutral error,
// and each is reported with what was wrong.
func TestStateRefused(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"service": "auth"}
	answers := mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: production}}
	first := func(t *testing.T) (*Standin, *mcp.ClientSession, string) {
		s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
		cs := client(t, s, "2026-07-28", true, nil)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["target"] == nil {
			t.Fatalf("first round: %+v", res)
		}
		return s, cs, res.RequestState
	}
	neutral := func(t *testing.T, err error) {
		t.Helper()
		var we *jsonrpc.Error
		if !errors.As(err, &we) || !strings.Contains(we.Message, "requestState") {
			t.Fatalf("err = %v, want reqstate's client error", err)
		}
	}
	problem := func(t *testing.T, s *Standin, detail string) {
		t.Helper()
		r := s.Report()
		for _, p := range r.Problems {
			if p.Kind == ProblemState && strings.Contains(p.Detail, detail) {
				return
			}
		}
		t.Errorf("no state problem %q in %+v", detail, r.Problems)
	}
	t.Run("tampered", func(t *testing.T) {
		s, cs, state := first(t)
		b := []byte(state)
		b[len(b)/2] ^= 1
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: string(b), InputResponses: answers})
		neutral(t, err)
		problem(t, s, "tampered")
	})
	t.Run("replayed", func(t *testing.T) {
		s, cs, state := first(t)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: answers})
		if err != nil || text(t, res) != "Rolling out auth 2.4.1 to production." {
			t.Fatalf("second round: %v %v", res, err)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: answers})
		neutral(t, err)
		problem(t, s, "replayed")
	})
	t.Run("foreign", func(t *testing.T) {
		s, cs, state := first(t)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "web"}, RequestState: state, InputResponses: answers})
		neutral(t, err)
		problem(t, s, "another request")
	})
	t.Run("other stand-in", func(t *testing.T) {
		_, _, state := first(t)
		s, cs, _ := first(t)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: answers})
		neutral(t, err)
		problem(t, s, "tampered")
	})
}

// A state past its time is refused as expired.
func TestStateExpired(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{StateTTL: time.Minute, Now: func() time.Time { return now }})
	cs := client(t, s, "2026-07-28", true, nil)
	ctx := context.Background()
	args := map[string]any{"service": "auth"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: production}}})
	if err == nil {
		t.Fatal("an expired state was accepted")
	}
	if r := s.Report(); len(r.Problems) == 0 || !strings.Contains(r.Problems[0].Detail, "expired") {
		t.Errorf("report %+v", r)
	}
}

// Requests the recording does not hold get a JSON-RPC error naming the
// nearest recorded one.
func TestUnrecordedNamesNearest(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	cs := client(t, s, "2026-07-28", false, accept(production))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"deploy", map[string]any{"service": "api"}, `mcp-tester serve: no recorded tools/call deploy has these params: {"arguments":{"service":"api"},"name":"deploy"}; the nearest recorded is tools/call {"arguments":{"service":"auth"},"name":"deploy"} (line 6)`},
		{"delpoy", map[string]any{"service": "web"}, `mcp-tester serve: the recording has no tools/call of the tool "delpoy" (did you mean "deploy"?); the nearest recorded is tools/call {"arguments":{"service":"web"},"name":"deploy"} (line 10)`},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Message != c.want || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: err = %v\nwant %s", c.name, err, c.want)
		}
	}
	_, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Errorf("prompts/list, not recorded, is answered empty: %v", err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if err == nil || !strings.Contains(err.Error(), "the recording holds no prompts/get request; it holds tools/list, tools/call") {
		t.Errorf("prompts/get: %v", err)
	}
	if r := s.Report(); len(r.Problems) != 3 || r.Problems[0].Nearest == nil || r.Problems[0].Nearest.Line != 6 {
		t.Errorf("report %+v", r)
	}
}

// The same request recorded several times is answered in recorded order,
// then the last again.
func TestRepeatedInOrder(t *testing.T) {
	sc := script(t, `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roll","arguments":{}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"one"}]}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roll"}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"busy"}}}
{"t_ms":5,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roll","arguments":null}}}
{"t_ms":6,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"three"}]}}}
`)
	s, _ := standin(t, sc, Options{})
	cs := client(t, s, "2026-07-28", false, nil)
	var got []string
	for range 5 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "roll"})
		if err != nil {
			var we *jsonrpc.Error
			errors.As(err, &we)
			got = append(got, "error "+we.Message)
			continue
		}
		got = append(got, text(t, res))
	}
	if want := "one|error busy|three|three|three"; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
	}
}

// Faults: an error in place of the answer, a delay.
func TestFaults(t *testing.T) {
	f1, _ := ParseFault("tools/call deploy:error=-32603:boom")
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{Faults: []Fault{f1}})
	cs := client(t, s, "2026-07-28", false, accept(production))
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32603 || we.Message != "boom" {
		t.Errorf("err = %v", err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list: %v", err)
	}
	if r := s.Report(); r.Faults["tools/call deploy:error=-32603:boom"] != 1 {
		t.Errorf("report %+v", r)
	}
}

// A question the client did not declare it can answer is a -32021 error
// naming the question, and reported.
func TestUndeclaredCapability(t *testing.T) {
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		s, _ := standin(t, load(t, "deploy-2025.jsonl"), Options{})
		cs := client(t, s, proto, false, nil)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities ||
			!strings.Contains(we.Message, `the recording asks question "q1" (line 6): a form elicitation (declare elicitation)`) {
			t.Errorf("%s: err = %v", proto, err)
		}
	}
}

// Lists come from the recorded results; without one, the tools called
// are listed.
func TestLists(t *testing.T) {
	for rec, note := range map[string]string{
		"deploy-2026.jsonl": "lists from the recording: tools/list (2 tools); not recorded, so answered empty: prompts/list, resources/list, resources/templates/list",
		"deploy-2025.jsonl": `lists not recorded, so listing what the recording calls: tools/list (1 tool "deploy"); not recorded, so answered empty: prompts/list, resources/list, resources/templates/list`,
	} {
		s, _ := standin(t, load(t, rec), Options{})
		if !strings.Contains(strings.Join(s.Notes(), "\n"), note) {
			t.Errorf("%s notes:\n%s", rec, strings.Join(s.Notes(), "\n"))
		}
		cs := client(t, s, "2025-11-25", false, nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) == 0 || res.Tools[0].Name != "deploy" {
			t.Errorf("%s: %+v %v", rec, res, err)
		}
		if cs.InitializeResult().ServerInfo.Name != "deployer" {
			t.Errorf("server info %+v", cs.InitializeResult().ServerInfo)
		}
	}
}

func readTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}

// A drop fault over stdio closes the stand-in's output: the client sees
// the server go, and the stand-in ends.
func TestDropStdio(t *testing.T) {
	drop, err := ParseFault("tools/list:drop")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{Faults: []Fault{drop}})
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(ctx, toServer, fromServer) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Fatal("tools/list answered through a dropped connection")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the stand-in did not end after the drop")
	}
	if r := s.Report(); r.Faults["tools/list:drop"] != 1 || !r.OK {
		t.Errorf("report %+v", r)
	}
}

// A recording of prompts, resources, templates and completions: each is
// listed and answered as recorded; a resource read through a template
// is served by its URI.
func TestPromptsResourcesCompletion(t *testing.T) {
	sc := script(t, `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{},"resources":{},"completions":{}},"serverInfo":{"name":"docs","version":"2.0.0"},"instructions":"Read the docs."}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"prompts/list"}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"greet","arguments":[{"name":"who"}]}]}}}
{"t_ms":5,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"Ann"}}}}
{"t_ms":6,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Hello, Ann"}}]}}}
{"t_ms":7,"dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}}
{"t_ms":8,"dir":"s2c","msg":{"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"docs://{page}","name":"page"}]}}}
{"t_ms":9,"dir":"c2s","msg":{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"docs://intro"}}}
{"t_ms":10,"dir":"s2c","msg":{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"docs://intro","text":"Welcome."}]}}}
{"t_ms":11,"dir":"c2s","msg":{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"A"}}}}
{"t_ms":12,"dir":"s2c","msg":{"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["Ann","Alex"],"hasMore":false}}}}
`)
	s, _ := standin(t, sc, Options{})
	cs := client(t, s, "2025-11-25", false, nil)
	ctx := context.Background()
	if got := cs.InitializeResult(); got.ServerInfo.Name != "docs" || got.Instructions != "Read the docs." || got.Capabilities.Completions == nil {
		t.Errorf("initialize %+v", got)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Arguments[0].Name != "who" {
		t.Fatalf("prompts/list %+v %v", prompts, err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ann"}})
	if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ann" {
		t.Fatalf("prompts/get %+v %v", p, err)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 {
		t.Fatalf("templates %+v %v", tl, err)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://intro"})
	if err != nil || r.Contents[0].Text != "Welcome." {
		t.Fatalf("resources/read %+v %v", r, err)
	}
	c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "A"}})
	if err != nil || strings.Join(c.Completion.Values, ",") != "Ann,Alex" {
		t.Fatalf("completion %+v %v", c, err)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://intra"})
	if err == nil || !strings.Contains(err.Error(), `the recording has no resources/read of the resource "docs://intra" (did you mean "docs://intro"?)`) {
		t.Errorf("unrecorded resource: %v", err)
	}
}

// A recorded sampling question is not asked of a client that did not
// declare sampling: the call fails with -32021, saying what to declare.
func TestSamplingUndeclared(t *testing.T) {
	sc := script(t, `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize","arguments":{}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"llm":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize"}}],"maxTokens":50}}}}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"summarize","arguments":{},"requestState":"x","inputResponses":{"llm":{"role":"assistant","content":{"type":"text","text":"Short."},"model":"m"}}}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Short."}]}}}
`)
	for _, proto := range []string{"2026-07-28", "2025-11-25"} {
		s, _ := standin(t, sc, Options{})
		cs := client(t, s, proto, false, accept(nil))
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities ||
			!strings.Contains(we.Message, `question "llm" (line 3): a sampling request (declare sampling)`) {
			t.Errorf("%s: %v", proto, err)
		}
		if r := s.Report(); len(r.Problems) != 1 || r.Problems[0].Kind != ProblemCapability {
			t.Errorf("%s: report %+v", proto, r)
		}
	}
}

// Requests in progress are bounded: a 2025-11-25 client's call waiting for
// its answer is one; beyond the bound a request is refused, not queued.
func TestInFlightBounded(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{MaxInFlight: 1})
	asked := make(chan struct{})
	release := make(chan struct{})
	cs := client(t, s, "2025-11-25", false, func(*mcp.ElicitParams) *mcp.ElicitResult {
		close(asked)
		<-release
		return &mcp.ElicitResult{Action: "accept", Content: production}
	})
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
		done <- err
	}()
	<-asked
	other := client(t, s, "2026-07-28", false, nil)
	_, err := other.ListTools(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "1 request in progress already, the most it answers at once") {
		t.Errorf("a request beyond the bound: %v", err)
	}
	// The refusal is the stand-in's own: no pass.
	r := s.Report()
	if i := slices.IndexFunc(r.Problems, func(p Problem) bool { return p.Kind == ProblemRefused }); i < 0 || r.OK ||
		r.Problems[i].Request != "tools/list" || !strings.Contains(r.Problems[i].Detail, "the stand-in refused it on its own: 1 request in progress already") {
		t.Errorf("the refusal is not reported: %+v", r)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the call in progress: %v", err)
	}
	if _, err := other.ListTools(context.Background(), nil); err != nil {
		t.Errorf("after it: %v", err)
	}
}

// A tool the recording calls but never lists takes the arguments it was
// called with, each of its values' JSON type (none where they differ, or
// for null), and others: a client that checks arguments against the
// schema sends what it sent before.
func TestCalledToolSchema(t *testing.T) {
	sc := script(t, `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"scale","arguments":{"service":"web","count":3,"dry":true,"tag":"a","note":null}}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}}
{"t_ms":5,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"scale","arguments":{"service":"api","count":2.5,"tag":["a"],"opts":{"x":1}}}}}
{"t_ms":6,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}}
{"t_ms":7,"dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ping"}}}
{"t_ms":8,"dir":"s2c","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"pong"}]}}}
`)
	s, _ := standin(t, sc, Options{})
	cs := client(t, s, "2025-11-25", false, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		got[tool.Name] = string(b)
	}
	want := map[string]string{
		"scale": `{"additionalProperties":true,"properties":{"count":{"type":"number"},"dry":{"type":"boolean"},"note":{},"opts":{"type":"object"},"service":{"type":"string"},"tag":{}},"type":"object"}`,
		"ping":  `{"additionalProperties":true,"type":"object"}`,
	}
	if !maps.Equal(got, want) {
		t.Errorf("schemas:\n got %v\nwant %v", got, want)
	}
}

// A recording with nothing of the client in it is served, and the stand-in
// says that it holds nothing to answer with.
func TestNothingRecorded(t *testing.T) {
	sc := script(t, `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
`)
	s, _ := standin(t, sc, Options{})
	if notes := strings.Join(s.Notes(), "\n"); !strings.Contains(notes, "the recording holds no request of the client: its lists are empty and every call is answered as not recorded") {
		t.Errorf("notes:\n%s", notes)
	}
	cs := client(t, s, "2025-11-25", false, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy"})
	if err == nil || !strings.Contains(err.Error(), "the recording holds no tools/call request; it holds no request at all") {
		t.Errorf("call: %v", err)
	}
}

// One client opens more single-use states than the old bound of 10,000
// within their lifetime (mcp-tester bench against a stand-in runs as many
// flows, each a round answered with its state): every one is opened, and
// each only once.
func TestManyStatesFromOneClient(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	round := func(state string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "deploy", Arguments: json.RawMessage(`{"service":"auth"}`), RequestState: state}}
	}
	ctx := subject.WithClient(context.Background(), "addr:192.0.2.1")
	var state string
	for i := range 10_001 {
		var err error
		state, err = s.codec.Issue(round(""), callState{X: 1, K: []string{"target"}}, &reqstate.IssueOptions{SingleUse: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reqstate.Open[callState](ctx, s.codec, round(state)); err != nil {
			t.Fatalf("state %d: %v", i+1, err)
		}
	}
	if _, err := reqstate.Open[callState](ctx, s.codec, round(state)); !errors.Is(err, reqstate.ErrReused) {
		t.Errorf("a state used again: %v", err)
	}
}

// Requests in progress are bounded per client too: one client (or clients
// holding a few each) cannot take the quarter of the places kept for
// newcomers.
func TestInFlightKeepsAPlaceForNewcomers(t *testing.T) {
	f := newInFlight(8)
	for range 6 {
		if !f.enter("~addr:192.0.2.1") {
			t.Fatal("the first client within its share was refused")
		}
	}
	if f.enter("~addr:192.0.2.1") {
		t.Error("one client took a place kept for newcomers")
	}
	for i := range 2 {
		if !f.enter("~addr:192.0.2.2") {
			t.Errorf("a newcomer's request %d was refused", i+1)
		}
	}
	if f.enter("~addr:192.0.2.3") {
		t.Error("more than the bound")
	}
	f.leave("~addr:192.0.2.2")
	if !f.enter("~addr:192.0.2.3") {
		t.Error("a place given back was not taken")
	}
}

// The report as it changes (serve --report rewrites its file then) is
// true after each change: a 2025-11-25 call that was asked and has ended
// is no longer unanswered, without waiting for another event.
func TestLiveReportTrue(t *testing.T) {
	var s *Standin
	var mu sync.Mutex
	var last Report
	s, _ = standin(t, load(t, "deploy-2026.jsonl"), Options{Changed: func() {
		r := s.Report()
		mu.Lock()
		last = r
		mu.Unlock()
	}})
	cs := client(t, s, "2025-11-25", false, func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: production}
	})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !last.OK || len(last.Problems) != 0 || last.Checked != 1 {
		t.Errorf("the last report written: %+v", last)
	}
}
