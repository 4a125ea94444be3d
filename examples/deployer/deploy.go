package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/form"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DeployIn is the deploy tool's input.
type DeployIn struct {
	Service string `json:"service" jsonschema:"Name of the service"`
}

// Target is the form the deploy tool asks.
type Target struct {
	Environment string `json:"environment" form:"title=Target environment,default=staging,oneof=staging:Staging|production:Production"`
	Confirm     bool   `json:"confirm" form:"title=I have reviewed the changes"`
}

// deployState travels through the client between round 1 and round 2,
// sealed: the version the user confirms. The codec binds it to the tool,
// the arguments, the user and an expiry, and lets it be used once.
type deployState struct {
	Version string `json:"version"`
}

type deployer struct {
	states *reqstate.Codec
	target *form.Form[Target]
	latest func(service string) string // asks the build system
}

func (d *deployer) deploy(ctx context.Context, req *mcp.CallToolRequest, in DeployIn) (*mcp.CallToolResult, any, error) {
	if !ask.Modes(req).Has(ask.Form) {
		return text("Deployment not started: this client cannot ask you to confirm it."), nil, nil
	}
	answer, answered := ask.Lookup(req.Params.InputResponses, "target")
	if !answered {
		return d.ask(req, in, "")
	}
	t, err := d.target.Decode(answer)
	switch {
	case errors.Is(err, form.ErrNotAccepted):
		return ask.Stopped("Deployment not started", answer), nil, nil
	case err != nil:
		return d.ask(req, in, fmt.Sprintf(" (%v)", err))
	}
	st, err := reqstate.Open[deployState](ctx, d.states, req)
	if err != nil {
		return nil, nil, reqstate.ClientError(err)
	}
	if !t.Confirm {
		return text("No deployment without confirmation."), nil, nil
	}
	return text(fmt.Sprintf("Rolling out %s %s to %s.", in.Service, st.Version, t.Environment)), nil, nil
}

// ask is round 1: the question, and the version it is about, sealed.
func (d *deployer) ask(req *mcp.CallToolRequest, in DeployIn, problem string) (*mcp.CallToolResult, any, error) {
	version := d.latest(in.Service)
	state, err := d.states.Issue(req, deployState{Version: version}, &reqstate.IssueOptions{SingleUse: true})
	if err != nil {
		return nil, nil, reqstate.ClientError(err)
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"target": d.target.Ask(fmt.Sprintf("Roll out %s version %s – where to?%s", in.Service, version, problem))},
		RequestState:  state,
	}, nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
