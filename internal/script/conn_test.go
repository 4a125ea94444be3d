package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds what the tests run against: an in-process server with
// tools that ask, and sdkConn, a Conn over a plain go-sdk client session
// that drives the rounds of input_required results itself.

// deploySchema is the question of the deployer's deploy tool.
var deploySchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"environment": map[string]any{"type": "string", "oneOf": []map[string]any{{"const": "staging"}, {"const": "production"}}, "default": "staging"},
		"confirm":     map[string]any{"type": "boolean"},
	},
	"required": []string{"environment", "confirm"},
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newTestServer builds the server the tests talk to.
func newTestServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "script-test", Version: "1"}, nil)
	type deployIn struct {
		Service string `json:"service"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, in deployIn) (*mcp.CallToolResult, any, error) {
		ans, ok := req.Params.InputResponses["target"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"target": &mcp.ElicitParams{
					Mode: "form", Message: fmt.Sprintf("Roll out %s version 2.4.1 – where to?", in.Service), RequestedSchema: deploySchema,
				}},
				RequestState: "state-" + in.Service,
			}, nil, nil
		}
		if req.Params.RequestState != "state-"+in.Service {
			return nil, nil, errors.New("requestState does not match this request")
		}
		if ans.Action != "accept" {
			return textResult("Deployment not started (" + ans.Action + ")."), nil, nil
		}
		if c, _ := ans.Content["confirm"].(bool); !c {
			return textResult("No deployment without confirmation."), nil, nil
		}
		env, _ := ans.Content["environment"].(string)
		return textResult(fmt.Sprintf("Rolling out %s 2.4.1 to %s.", in.Service, env)), nil, nil
	})
	type argsIn struct {
		Count int      `json:"count,omitempty"`
		Flag  bool     `json:"flag,omitempty"`
		Name  string   `json:"name,omitempty"`
		Ratio float64  `json:"ratio,omitempty"`
		Tags  []string `json:"tags,omitempty"`
	}
	type argsOut struct {
		Echo map[string]any `json:"echo"`
		Len  int            `json:"len"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "args"}, func(ctx context.Context, req *mcp.CallToolRequest, in argsIn) (*mcp.CallToolResult, argsOut, error) {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		b, _ := json.Marshal(m)
		return textResult(string(b)), argsOut{Echo: m, Len: len(in.Name)}, nil
	})
	// raw echoes its arguments as they came, without the go-sdk's checks.
	s.AddTool(&mcp.Tool{Name: "raw", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"verbose": map[string]any{"type": "boolean"}, "count": map[string]any{"type": "integer"}, "name": map[string]any{"type": "string"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(string(req.Params.Arguments)), nil
		})
	// loose takes any argument besides name.
	s.AddTool(&mcp.Tool{Name: "loose", InputSchema: map[string]any{"type": "object", "additionalProperties": true, "properties": map[string]any{
		"name": map[string]any{"type": "string"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(string(req.Params.Arguments)), nil
		})
	s.AddTool(&mcp.Tool{Name: "broken", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "broken on purpose"}
	})
	s.AddTool(&mcp.Tool{Name: "sad", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := textResult("something went wrong")
		r.IsError = true
		return r, nil
	})
	s.AddTool(&mcp.Tool{Name: "quiet", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("done without asking"), nil
	})
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// two asks two questions at once, a (a form with field name) and b (a URL).
	s.AddTool(&mcp.Tool{Name: "two", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"a": &mcp.ElicitParams{Mode: "form", Message: "Your name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
				"b": &mcp.ElicitParams{Mode: "url", Message: "Connect your account", URL: "https://example.test/connect", ElicitationID: "e1"},
			}}, nil
		}
		var parts []string
		for _, k := range []string{"a", "b"} {
			if r, ok := req.Params.InputResponses[k].(*mcp.ElicitResult); ok {
				c, _ := json.Marshal(r.Content)
				parts = append(parts, fmt.Sprintf("%s=%s%s", k, r.Action, strings.TrimPrefix(string(c), "null")))
			}
		}
		return textResult(strings.Join(parts, " ")), nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if _, ok := req.Params.InputResponses["tone"]; !ok {
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"tone": &mcp.ElicitParams{Mode: "form", Message: "Which tone?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"tone": map[string]any{"type": "string"}}}}}}, nil
		}
		tone := "plain"
		if r := req.Params.InputResponses["tone"].(*mcp.ElicitResult); r.Action == "accept" {
			tone, _ = r.Content["tone"].(string)
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Hello %s, in a %s tone", req.Params.Arguments["who"], tone)}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "note://secret", Name: "secret"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		r, ok := req.Params.InputResponses["ok"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Mode: "form", Message: "Reveal the note?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}}}, nil
		}
		text := "kept secret"
		if r.Action == "accept" {
			text = "the note says hi"
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "note://secret", Text: text}}}, nil
	})
	return s
}

// sdkConn is a Conn over a go-sdk client session with the automatic rounds
// off: it answers the questions of an input_required result in key order
// (answers with a key first) and retries, at most maxRounds times.
type sdkConn struct {
	cs *mcp.ClientSession
}

const maxRounds = 10

// connectInMemory connects a client to s over in-memory transports.
func connectInMemory(ctx context.Context, s *mcp.Server) (*sdkConn, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "script-test-client", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return &sdkConn{cs: cs}, nil
}

// testConnect returns a RunOptions.Connect making a fresh server and
// session per script.
func testConnect() func(ctx context.Context) (Conn, error) {
	return func(ctx context.Context) (Conn, error) { return connectInMemory(ctx, newTestServer()) }
}

// answerAll answers a round of questions from the queue, recording them.
func answerAll(round int, reqs mcp.InputRequestMap, queue *[]answer.Spec, out *Outcome) mcp.InputResponseMap {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	resp := mcp.InputResponseMap{}
	for _, k := range keys {
		p, ok := reqs[k].(*mcp.ElicitParams)
		if !ok {
			continue
		}
		i := slices.IndexFunc(*queue, func(a answer.Spec) bool { return a.Key == k })
		if i < 0 {
			i = slices.IndexFunc(*queue, func(a answer.Spec) bool { return a.Key == "" })
		}
		ans := &mcp.ElicitResult{Action: "decline"}
		if i >= 0 {
			a := (*queue)[i]
			*queue = slices.Delete(*queue, i, i+1)
			ans = &mcp.ElicitResult{Action: a.Action, Content: a.Content}
		}
		resp[k] = ans
		out.Questions = append(out.Questions, exchange.Entry{Key: k, Round: round, Params: p, Answer: ans})
	}
	return resp
}

func (c *sdkConn) CallTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error) {
	queue := slices.Clone(answers)
	out := &Outcome{}
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	for round := 1; ; round++ {
		res, err := c.cs.CallTool(ctx, params)
		if err != nil {
			out.Unused = queue
			return out, err
		}
		if res.InputRequests == nil {
			out.Result, out.Unused = res, queue
			return out, nil
		}
		if round > maxRounds {
			return out, fmt.Errorf("more than %d rounds of questions", maxRounds)
		}
		params = &mcp.CallToolParams{Name: name, Arguments: args, RequestState: res.RequestState,
			InputResponses: answerAll(round, res.InputRequests, &queue, out)}
	}
}

func (c *sdkConn) GetPrompt(ctx context.Context, name string, args map[string]string, answers []answer.Spec) (*Outcome, error) {
	queue := slices.Clone(answers)
	out := &Outcome{}
	params := &mcp.GetPromptParams{Name: name, Arguments: args}
	for round := 1; ; round++ {
		res, err := c.cs.GetPrompt(ctx, params)
		if err != nil {
			out.Unused = queue
			return out, err
		}
		if res.InputRequests == nil {
			out.Result, out.Unused = res, queue
			return out, nil
		}
		if round > maxRounds {
			return out, fmt.Errorf("more than %d rounds of questions", maxRounds)
		}
		params = &mcp.GetPromptParams{Name: name, Arguments: args, RequestState: res.RequestState,
			InputResponses: answerAll(round, res.InputRequests, &queue, out)}
	}
}

func (c *sdkConn) ReadResource(ctx context.Context, uri string, answers []answer.Spec) (*Outcome, error) {
	queue := slices.Clone(answers)
	out := &Outcome{}
	params := &mcp.ReadResourceParams{URI: uri}
	for round := 1; ; round++ {
		res, err := c.cs.ReadResource(ctx, params)
		if err != nil {
			out.Unused = queue
			return out, err
		}
		if res.InputRequests == nil {
			out.Result, out.Unused = res, queue
			return out, nil
		}
		if round > maxRounds {
			return out, fmt.Errorf("more than %d rounds of questions", maxRounds)
		}
		params = &mcp.ReadResourceParams{URI: uri, RequestState: res.RequestState,
			InputResponses: answerAll(round, res.InputRequests, &queue, out)}
	}
}

func (c *sdkConn) ListTools(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func (c *sdkConn) Ping(ctx context.Context) error { return c.cs.Ping(ctx, nil) }
func (c *sdkConn) Close() error                   { return c.cs.Close() }

// mustParse parses src or fails the test.
func mustParse(t testing.TB, name, src string) *Script {
	t.Helper()
	s, err := ParseFile(name, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return s
}
