package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/form"
	"github.com/askback/askback/internal/platform/sleep"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rolloutOptions configure the rollout tool. The zero value is the demo.
type rolloutOptions struct {
	// Instances is how many instances a rollout updates. Default 10.
	Instances int
	// Step is how long updating (or rolling back) one instance takes.
	// Default 300ms; tests make it tiny.
	Step time.Duration
	// ErrorRate reports the error rate, in percent, of a service while a
	// rollout is under way. Default: 0.3.
	ErrorRate func(service string) float64
	// Tasks configures the tasks extension (store, TTL, poll interval).
	Tasks *tasks.Options
}

// registerRollout adds the long-running rollout tool, which runs as a task:
// it updates instances step by step, asks half-way whether to go on, and
// acts on the answer without being restarted.
func registerRollout(server *mcp.Server, opts *rolloutOptions) (*tasks.Extension, error) {
	var o rolloutOptions
	if opts != nil {
		o = *opts
	}
	if o.Instances <= 0 {
		o.Instances = 10
	}
	if o.Step <= 0 {
		o.Step = 300 * time.Millisecond
	}
	if o.ErrorRate == nil {
		o.ErrorRate = func(string) float64 { return 0.3 }
	}
	topts := &tasks.Options{PollInterval: 500 * time.Millisecond}
	if o.Tasks != nil {
		topts = o.Tasks
	}
	ext, err := tasks.Install(server, topts)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	r := &rollout{opts: o}
	ext.AddTool(&mcp.Tool{
		Name:        "rollout",
		Description: "Rolls a new version of a service out to its instances, step by step, as a task. Half-way it shows the error rate and asks whether to continue, pause or roll back.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"service": map[string]any{"type": "string", "description": "Name of the service"},
				"version": map[string]any{"type": "string", "description": "Version to roll out"},
			},
			"required": []string{"service", "version"},
		},
	}, tasks.Optional, r.run)
	return ext, nil
}

type rollout struct{ opts rolloutOptions }

// rolloutIn is the rollout tool's input.
type rolloutIn struct {
	Service string `json:"service"`
	Version string `json:"version"`
}

// decision is the half-way question: a single choice, "pause" unless the
// user picks another.
type decision struct {
	Decision string `json:"decision" form:"title=How should the rollout go on?,default=pause,oneof=continue:Continue|pause:Pause|rollback:Roll back"`
}

var decisionForm = form.Must[decision](nil)

func (r *rollout) run(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
	var in rolloutIn
	if err := t.Arguments(&in); err != nil {
		return nil, err
	}
	in.Service, in.Version = strings.TrimSpace(in.Service), strings.TrimSpace(in.Version)
	if in.Service == "" || in.Version == "" {
		return toolError("rollout needs a service and a version, e.g. {\"service\":\"auth-service\",\"version\":\"2.4.1\"}"), nil
	}
	name := in.Service + " " + in.Version
	n := r.opts.Instances
	half := n / 2
	if half == 0 {
		half = 1
	}
	for i := 1; i <= half; i++ {
		if err := sleep.For(ctx, r.opts.Step); err != nil {
			return nil, err
		}
		t.Progress(float64(i), float64(n), "Updating instances to "+name)
	}
	rate := r.opts.ErrorRate(in.Service)
	question := decisionForm.Ask(fmt.Sprintf("Rollout of %s: %d%% of instances updated, error rate %s %% — continue?", name, half*100/n, formatRate(rate)))
	res, err := t.Ask(ctx, "decision", question)
	if errors.Is(err, tasks.ErrCannotAsk) {
		return rolloutText(fmt.Sprintf("Rollout of %s paused at %d of %d instances: the client cannot be asked whether to continue, so nothing more was rolled out.", name, half, n)), nil
	}
	if err != nil {
		return nil, err
	}
	answer, _ := ask.Read(res)
	choice, err := decisionForm.Decode(answer)
	if err != nil {
		return rolloutText(fmt.Sprintf("Rollout of %s stopped at %d of %d instances (%s): nothing more was rolled out.", name, half, n, answer.Action)), nil
	}
	switch choice.Decision {
	case "continue":
		for i := half + 1; i <= n; i++ {
			if err := sleep.For(ctx, r.opts.Step); err != nil {
				return nil, err
			}
			t.Progress(float64(i), float64(n), "Updating instances to "+name)
		}
		return rolloutText(fmt.Sprintf("Rollout of %s complete: %d of %d instances updated.", name, n, n)), nil
	case "rollback":
		for i := half; i >= 1; i-- {
			if err := sleep.For(ctx, r.opts.Step); err != nil {
				return nil, err
			}
			t.Progress(float64(half-i+1), float64(half), "Rolling back "+name)
		}
		return rolloutText(fmt.Sprintf("Rolled back %s: the %d updated instances run the previous version again; %s runs nowhere.", name, half, in.Version)), nil
	default: // "pause", the safe default
		return rolloutText(fmt.Sprintf("Rollout of %s paused at %d of %d instances: nothing more was rolled out.", name, half, n)), nil
	}
}

func formatRate(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

func rolloutText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
