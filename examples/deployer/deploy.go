package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DeployIn is the deploy tool's input.
type DeployIn struct {
	Service string `json:"service" jsonschema:"Name of the service"`
}

// deployState travels through the client between round 1 and round 2.
type deployState struct {
	Service string    `json:"service"`
	Version string    `json:"version"` // the version the user confirms
	Expires time.Time `json:"exp"`
}

type deployer struct {
	key    []byte
	latest func(service string) string // asks the build system
}

var targetSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"environment": map[string]any{
			"type": "string", "title": "Target environment",
			"oneOf": []map[string]any{
				{"const": "staging", "title": "Staging"},
				{"const": "production", "title": "Production"},
			},
			"default": "staging",
		},
		"confirm": map[string]any{"type": "boolean", "title": "I have reviewed the changes"},
	},
	"required": []string{"environment", "confirm"},
}

func (d *deployer) deploy(ctx context.Context, req *mcp.CallToolRequest, in DeployIn) (*mcp.CallToolResult, any, error) {
	answer, answered := req.Params.InputResponses["target"].(*mcp.ElicitResult)
	if !answered {
		version := d.latest(in.Service)
		state, err := d.sign(deployState{Service: in.Service, Version: version, Expires: time.Now().Add(10 * time.Minute)})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"target": &mcp.ElicitParams{
				Mode:            "form",
				Message:         fmt.Sprintf("Roll out %s version %s – where to?", in.Service, version),
				RequestedSchema: targetSchema,
			}},
			RequestState: state,
		}, nil, nil
	}
	if answer.Action != "accept" {
		return text("Deployment not started (" + answer.Action + ")."), nil, nil
	}
	var st deployState
	if err := d.verify(req.Params.RequestState, &st); err != nil {
		return nil, nil, err
	}
	if st.Service != in.Service || time.Now().After(st.Expires) {
		return nil, nil, errors.New("requestState does not match this request or has expired")
	}
	if confirm, _ := answer.Content["confirm"].(bool); !confirm {
		return text("No deployment without confirmation."), nil, nil
	}
	env, _ := answer.Content["environment"].(string)
	return text(fmt.Sprintf("Rolling out %s %s to %s.", st.Service, st.Version, env)), nil, nil
}

func (d *deployer) sign(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, d.key)
	m.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

func (d *deployer) verify(s string, v any) error {
	payload, mac, ok := strings.Cut(s, ".")
	if !ok {
		return errors.New("requestState is missing")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	sig, err2 := base64.RawURLEncoding.DecodeString(mac)
	if err1 != nil || err2 != nil {
		return errors.New("requestState is corrupted")
	}
	m := hmac.New(sha256.New, d.key)
	m.Write(b)
	if !hmac.Equal(sig, m.Sum(nil)) {
		return errors.New("requestState has been tampered with")
	}
	return json.Unmarshal(b, v)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
