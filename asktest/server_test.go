//lint:file-ignore SA1019 the test server asks for sampling on purpose: deprecated, but still part of the protocol.

package asktest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/form"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Target is the form the deploy tool asks, as the example deployer's.
type Target struct {
	Environment string `json:"environment" form:"title=Target environment,default=staging,oneof=staging:Staging|production:Production"`
	Confirm     bool   `json:"confirm" form:"title=I have reviewed the changes"`
}

// DeployIn is the deploy tool's input.
type DeployIn struct {
	Service string `json:"service" jsonschema:"Name of the service"`
}

type deployState struct {
	Version string `json:"version"`
}

// broken says how a test server misbehaves: each field breaks one thing
// an assertion of asktest must catch.
type broken struct {
	noAsk    bool          // deploy deploys without asking
	plain    bool          // deploy carries its state in plain base64: tampering goes through
	askURL   bool          // deploy asks to open a link instead of a form
	reAsk    bool          // deploy asks again, whatever the answer
	slow     bool          // a tool, slow, waits until its call ends
	stuck    chan struct{} // slow waits for this, whatever its context says
	wrongMsg bool          // deploy's message names another version
	fails    string        // a tool, rollback, reports this failure (isError) once confirmed
}

// newServer is a server that asks as the example deployer does (deploy),
// plus a tool that asks for a model reply (summarize), one that asks to
// open a link instead of a form (askURL), a prompt that asks, and a tool
// that waits for its context (slow) and one that asks, then fails with
// an isError result (rollback); b breaks it (noAsk: the server has
// nothing that asks).
func newServer(b broken) *mcp.Server {
	states, err := reqstate.New(&reqstate.Options{
		Keys:   []keys.Key{{ID: "test", Secret: []byte("0123456789abcdef0123456789abcdef")}},
		Replay: replay.NewMemory(nil),
	})
	if err != nil {
		panic(err)
	}
	f := form.Must[Target](nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "testdeployer", Version: "1"}, nil)
	ask.EveryRound(s)
	mcp.AddTool(s, &mcp.Tool{Name: "deploy", Description: "Rolls out a service; asks where to, and for confirmation."},
		func(ctx context.Context, req *mcp.CallToolRequest, in DeployIn) (*mcp.CallToolResult, any, error) {
			version := "2.4.1"
			if b.wrongMsg {
				version = "2.4.0"
			}
			if b.noAsk {
				return text("Rolling out %s %s to staging.", in.Service, version), nil, nil
			}
			if !ask.Modes(req).Has(ask.Form) {
				return text("Deployment not started: this client cannot ask you to confirm it."), nil, nil
			}
			a, answered := ask.Lookup(req.Params.InputResponses, "target")
			if b.askURL {
				if _, opened := ask.Lookup(req.Params.InputResponses, "open"); !opened {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"open": &mcp.ElicitParams{
						Mode: "url", Message: "Sign in to deploy", URL: "https://example.test/sign-in", ElicitationID: "e1"}}}, nil, nil
				}
				return text("Rolling out %s %s to staging.", in.Service, version), nil, nil
			}
			question := func(problem string) (*mcp.CallToolResult, any, error) {
				st, err := states.Issue(req, deployState{Version: version}, &reqstate.IssueOptions{SingleUse: true})
				if b.plain {
					raw, _ := json.Marshal(deployState{Version: version})
					st, err = base64.RawURLEncoding.EncodeToString(raw), nil
				}
				if err != nil {
					return nil, nil, reqstate.ClientError(err)
				}
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"target": f.Ask(fmt.Sprintf("Roll out %s version %s – where to?%s", in.Service, version, problem))},
					RequestState:  st,
				}, nil, nil
			}
			if !answered || b.reAsk {
				return question("")
			}
			t, err := f.Decode(a)
			switch {
			case errors.Is(err, form.ErrNotAccepted):
				return ask.Stopped("Deployment not started", a), nil, nil
			case err != nil:
				return question(fmt.Sprintf(" (%v)", err))
			}
			var st deployState
			if b.plain {
				raw, err := base64.RawURLEncoding.DecodeString(req.Params.RequestState)
				if err == nil {
					err = json.Unmarshal(raw, &st)
				}
				if err != nil {
					st.Version = "?"
				}
			} else if st, err = reqstate.Open[deployState](ctx, states, req); err != nil {
				return nil, nil, reqstate.ClientError(err)
			}
			if !t.Confirm {
				return text("No deployment without confirmation."), nil, nil
			}
			return text("Rolling out %s %s to %s.", in.Service, st.Version, t.Environment), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "summarize", Description: "Asks the client's model for a summary.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			q := &mcp.CreateMessageParams{MaxTokens: 50, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize: " + in.Text}}}}
			if !ask.Permits(req, q) {
				return text("No model to ask."), nil, nil
			}
			if r, ok := req.Params.InputResponses["summary"].(*mcp.CreateMessageWithToolsResult); ok && r != nil && len(r.Content) > 0 {
				if t, ok := r.Content[0].(*mcp.TextContent); ok {
					return text("Summary: %s", t.Text), nil, nil
				}
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"summary": q}}, nil, nil
		})

	if b.slow || b.stuck != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Waits until its call ends.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				if b.stuck != nil {
					<-b.stuck
					return text("done"), nil, nil
				}
				<-ctx.Done()
				return nil, nil, ctx.Err()
			})
	}

	if b.fails != "" {
		mcp.AddTool(s, &mcp.Tool{Name: "rollback", Description: "Rolls a service back; asks for confirmation, then reports its failure."},
			func(ctx context.Context, req *mcp.CallToolRequest, in DeployIn) (*mcp.CallToolResult, any, error) {
				if _, ok := ask.Lookup(req.Params.InputResponses, "sure"); !ok && ask.Modes(req).Has(ask.Form) {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sure": &mcp.ElicitParams{Message: "Roll " + in.Service + " back?",
						RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"sure": map[string]any{"type": "boolean"}}}}}}, nil, nil
				}
				r := text("%s", b.fails)
				r.IsError = true
				return r, nil, nil
			})
	}

	if b.noAsk {
		return s
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets; asks for a name."},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a, ok := ask.Lookup(req.Params.InputResponses, "name")
			if !ok && !ask.Modes(req).Has(ask.Form) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello."}}}}, nil
			}
			if !ok {
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}}, nil
			}
			if !a.Accepted() {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, stranger."}}}}, nil
			}
			name, _ := a.Content["name"].(string)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + name + "."}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "note://today", Name: "today", Description: "A note to its reader; asks for a name.", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			note := func(text string) *mcp.ReadResourceResult {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}
			}
			if !ask.Modes(req).Has(ask.Form) {
				return note("Today, for nobody."), nil
			}
			q := &mcp.ElicitParams{Message: "For whom?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}
			a, ok := ask.Lookup(req.Params.InputResponses, "name")
			p := req.Session.InitializeParams()
			switch {
			case !ok && (p == nil || p.ProtocolVersion >= "2026-07-28"):
				return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"name": q}}, nil
			case !ok:
				// The go-sdk asks older clients no resource's input_required
				// result (see ask.EveryRound): a resource of theirs asks
				// with elicitation/create itself.
				r, err := req.Session.Elicit(ctx, q)
				if err != nil {
					return nil, err
				}
				a, _ = ask.Read(r)
			}
			if !a.Accepted() {
				return note("Today, for a stranger."), nil
			}
			name, _ := a.Content["name"].(string)
			return note("Today, for " + name + "."), nil
		})
	return s
}

func text(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
