//lint:file-ignore SA1019 the suite exercises sampling and roots, deprecated but still part of the protocol.

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fixtures of the input-required-result-* scenarios. Tools that keep
// something between rounds do it in a sealed requestState: a request without
// a state is a first round; a request with one must carry a state this
// server issued for this very request, or it gets the neutral
// invalid-params error of reqstate.ClientError.

func (f *fixtures) addMRTR(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_elicitation",
		Description: "Asks for the caller's name with a form, then greets them."}, f.elicitation)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_sampling",
		Description: "Asks the client's model a question, then reports the answer."}, f.sampling)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_list_roots",
		Description: "Asks for the client's roots, then lists them."}, f.listRoots)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_request_state",
		Description: "Asks for a confirmation and keeps a sealed requestState between the rounds."}, f.confirmWithState)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_tampered_state",
		Description: "Like test_input_required_result_request_state; a changed requestState is refused."}, f.confirmWithState)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_multiple_inputs",
		Description: "Asks for a name, a model answer and the roots in one round."}, f.multipleInputs)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_multi_round",
		Description: "Asks two questions in two rounds, carrying the first answer in a single-use sealed state."}, f.multiRound)
	mcp.AddTool(server, &mcp.Tool{Name: "test_input_required_result_capabilities",
		Description: "Asks only what the request's client capabilities allow."}, f.capabilities)
	server.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt",
		Description: "Asks what context the prompt should use."}, f.prompt)
	server.AddResource(&mcp.Resource{URI: "test://input-required-result", Name: "input-required-result",
		Description: "Asks for a confirmation before it can be read.", MIMEType: "text/plain"}, f.resource)
}

func formQuestion(message, field, typ string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: message,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{field: map[string]any{"type": typ}},
			"required":   []string{field},
		},
	}
}

var (
	askName    = formQuestion("What is your name?", "name", "string")
	askConfirm = formQuestion("Please confirm", "ok", "boolean")
	askCapital = &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "What is the capital of France?"}}},
		MaxTokens: 100,
	}
	askGreeting = &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Generate a greeting"}}},
		MaxTokens: 50,
	}
	askRoots = &mcp.ListRootsParams{}
)

// require returns the -32021 error if the request's client cannot be asked
// every question of qs.
func require(req ask.Request, qs mcp.InputRequestMap) error {
	for _, q := range qs {
		if !ask.Permits(req, q) {
			return ask.MissingCapability(needed(q))
		}
	}
	return nil
}

// needed returns the client capability a question needs.
func needed(q mcp.InputRequest) *mcp.ClientCapabilities {
	switch q := q.(type) {
	case *mcp.ElicitParams:
		if q.Mode == "url" {
			return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
		}
		return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	case *mcp.ListRootsParams:
		return &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
	}
	return &mcp.ClientCapabilities{}
}

// inputRequired is the result that asks qs (again), with an optional state.
func inputRequired(qs mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: qs, RequestState: state}
}

func (f *fixtures) elicitation(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	qs := mcp.InputRequestMap{"user_name": askName}
	if err := require(req, qs); err != nil {
		return nil, nil, err
	}
	answer, ok := ask.Lookup(req.Params.InputResponses, "user_name")
	if !ok {
		return inputRequired(qs, ""), nil, nil
	}
	if !answer.Accepted() {
		return ask.Stopped("No greeting", answer), nil, nil
	}
	name, ok := answer.Text("name")
	if !ok || name == "" {
		return inputRequired(qs, ""), nil, nil // the answer lacks the required field: ask again
	}
	return text("Hello, " + name + "!"), nil, nil
}

func samplingText(responses mcp.InputResponseMap, key string) (string, bool) {
	r, ok := responses[key].(*mcp.CreateMessageWithToolsResult)
	if !ok || r == nil {
		return "", false
	}
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), true
}

func rootURIs(responses mcp.InputResponseMap, key string) ([]string, bool) {
	r, ok := responses[key].(*mcp.ListRootsResult)
	if !ok || r == nil {
		return nil, false
	}
	uris := []string{}
	for _, root := range r.Roots {
		if root != nil {
			uris = append(uris, root.URI)
		}
	}
	return uris, true
}

func (f *fixtures) sampling(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	qs := mcp.InputRequestMap{"capital_question": askCapital}
	if err := require(req, qs); err != nil {
		return nil, nil, err
	}
	answer, ok := samplingText(req.Params.InputResponses, "capital_question")
	if !ok {
		return inputRequired(qs, ""), nil, nil
	}
	return text("The model answered: " + answer), nil, nil
}

func (f *fixtures) listRoots(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	qs := mcp.InputRequestMap{"client_roots": askRoots}
	if err := require(req, qs); err != nil {
		return nil, nil, err
	}
	uris, ok := rootURIs(req.Params.InputResponses, "client_roots")
	if !ok {
		return inputRequired(qs, ""), nil, nil
	}
	return text(fmt.Sprintf("The client has %d root(s): %s", len(uris), strings.Join(uris, ", "))), nil, nil
}

// confirmState is what the confirmation tools carry between rounds.
type confirmState struct {
	Asked string `json:"asked"`
}

func (f *fixtures) confirmWithState(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	qs := mcp.InputRequestMap{"confirm": askConfirm}
	if err := require(req, qs); err != nil {
		return nil, nil, err
	}
	if req.Params.RequestState == "" {
		state, err := f.codec.Issue(req, confirmState{Asked: "confirm"}, nil)
		if err != nil {
			return nil, nil, err
		}
		return inputRequired(qs, state), nil, nil
	}
	st, err := reqstate.Open[confirmState](ctx, f.codec, req)
	if err != nil {
		return nil, nil, reqstate.ClientError(err)
	}
	answer, ok := ask.Lookup(req.Params.InputResponses, st.Asked)
	if !ok {
		state, err := f.codec.Issue(req, st, nil)
		if err != nil {
			return nil, nil, err
		}
		return inputRequired(qs, state), nil, nil
	}
	if !answer.Accepted() {
		return ask.Stopped("state-ok, but nothing confirmed", answer), nil, nil
	}
	confirmed, _ := answer.Bool("ok")
	return text(fmt.Sprintf("state-ok: the requestState checked out; confirmed=%v", confirmed)), nil, nil
}

func (f *fixtures) multipleInputs(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	qs := mcp.InputRequestMap{"user_name": askName, "greeting": askGreeting, "client_roots": askRoots}
	if err := require(req, qs); err != nil {
		return nil, nil, err
	}
	if req.Params.RequestState != "" {
		if _, err := reqstate.Open[struct{}](ctx, f.codec, req); err != nil {
			return nil, nil, reqstate.ClientError(err)
		}
	}
	pending := ask.Pending(qs, req.Params.InputResponses)
	if req.Params.RequestState == "" || pending != nil {
		if pending == nil {
			pending = qs // answers without the state of round 1 do not count
		}
		state, err := f.codec.Issue(req, struct{}{}, nil)
		if err != nil {
			return nil, nil, err
		}
		return inputRequired(pending, state), nil, nil
	}
	name := "someone"
	if a, _ := ask.Lookup(req.Params.InputResponses, "user_name"); a.Accepted() {
		if n, ok := a.Text("name"); ok {
			name = n
		}
	}
	greeting, _ := samplingText(req.Params.InputResponses, "greeting")
	uris, _ := rootURIs(req.Params.InputResponses, "client_roots")
	return text(fmt.Sprintf("%s says %q with %d root(s).", name, greeting, len(uris))), nil, nil
}

// roundState is what the multi-round tool carries: which round it is in and
// the first answer.
type roundState struct {
	Round int    `json:"round"`
	Name  string `json:"name,omitempty"`
}

func (f *fixtures) multiRound(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	step1 := mcp.InputRequestMap{"step1": formQuestion("Step 1: What is your name?", "name", "string")}
	step2 := mcp.InputRequestMap{"step2": formQuestion("Step 2: What is your favorite color?", "color", "string")}
	if err := require(req, step1); err != nil {
		return nil, nil, err
	}
	next := func(qs mcp.InputRequestMap, st roundState) (*mcp.CallToolResult, any, error) {
		state, err := f.codec.Issue(req, st, &reqstate.IssueOptions{SingleUse: true})
		if err != nil {
			return nil, nil, err
		}
		return inputRequired(qs, state), nil, nil
	}
	if req.Params.RequestState == "" {
		return next(step1, roundState{Round: 1})
	}
	st, err := reqstate.Open[roundState](ctx, f.codec, req)
	if err != nil {
		return nil, nil, reqstate.ClientError(err)
	}
	switch st.Round {
	case 1:
		a, ok := ask.Lookup(req.Params.InputResponses, "step1")
		if !ok {
			return next(step1, st)
		}
		if !a.Accepted() {
			return ask.Stopped("Stopped after step 1", a), nil, nil
		}
		name, _ := a.Text("name")
		return next(step2, roundState{Round: 2, Name: name})
	case 2:
		a, ok := ask.Lookup(req.Params.InputResponses, "step2")
		if !ok {
			return next(step2, st)
		}
		if !a.Accepted() {
			return ask.Stopped("Stopped after step 2", a), nil, nil
		}
		color, _ := a.Text("color")
		return text(fmt.Sprintf("Multi-round complete: %s likes %s.", st.Name, color)), nil, nil
	}
	return nil, nil, reqstate.ClientError(reqstate.ErrTampered)
}

func (f *fixtures) capabilities(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	allowed := ask.Filter(req, mcp.InputRequestMap{"user_name": askName, "greeting": askGreeting, "client_roots": askRoots})
	if allowed == nil {
		return text("Nothing asked: this request's client declared neither elicitation, sampling nor roots."), nil, nil
	}
	if pending := ask.Pending(allowed, req.Params.InputResponses); pending != nil {
		return inputRequired(pending, ""), nil, nil
	}
	keys := make([]string, 0, len(allowed))
	for k := range allowed {
		keys = append(keys, k)
	}
	return text(fmt.Sprintf("Answered %d permitted question(s).", len(keys))), nil, nil
}

func (f *fixtures) prompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	qs := mcp.InputRequestMap{"user_context": formQuestion("What context should the prompt use?", "context", "string")}
	if err := require(req, qs); err != nil {
		return nil, err
	}
	again := func() (*mcp.GetPromptResult, error) {
		state, err := f.codec.Issue(req, struct{}{}, nil)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{InputRequests: qs, RequestState: state}, nil
	}
	if req.Params.RequestState == "" {
		return again()
	}
	if _, err := reqstate.Open[struct{}](ctx, f.codec, req); err != nil {
		return nil, reqstate.ClientError(err)
	}
	a, ok := ask.Lookup(req.Params.InputResponses, "user_context")
	if !ok {
		return again()
	}
	use, _ := a.Text("context")
	if !a.Accepted() || use == "" {
		use = "(none given)"
	}
	return &mcp.GetPromptResult{
		Description: "A prompt that asked for its context",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Use this context: " + use}}},
	}, nil
}

func (f *fixtures) resource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	qs := mcp.InputRequestMap{"confirm": askConfirm}
	if err := require(req, qs); err != nil {
		return nil, err
	}
	again := func() (*mcp.ReadResourceResult, error) {
		state, err := f.codec.Issue(req, struct{}{}, nil)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{InputRequests: qs, RequestState: state}, nil
	}
	if req.Params.RequestState == "" {
		return again()
	}
	if _, err := reqstate.Open[struct{}](ctx, f.codec, req); err != nil {
		return nil, reqstate.ClientError(err)
	}
	a, ok := ask.Lookup(req.Params.InputResponses, "confirm")
	if !ok {
		return again()
	}
	body := "Not confirmed."
	if ok, _ := a.Bool("ok"); a.Accepted() && ok {
		body = "Confirmed content."
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: body}}}, nil
}
