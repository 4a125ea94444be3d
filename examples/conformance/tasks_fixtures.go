package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/platform/sleep"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTaskFixtures registers the fixtures of the suite's tasks-* scenarios on
// top of the tasks extension: greet (synchronous), slow_compute,
// failing_job (task required), protocol_error_job, confirm_delete,
// multi_input (two questions at once) and test_tool_with_task (multi
// round-trip first, then a task).
func addTaskFixtures(server *mcp.Server) {
	ext, err := tasks.Install(server, &tasks.Options{PollInterval: 200 * time.Millisecond})
	if err != nil {
		// Install fails only if the SDK reserves one of the tasks/* methods.
		panic(fmt.Sprintf("task fixtures: %v", err))
	}
	object := func(props map[string]any, required ...string) map[string]any {
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}

	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone, synchronously."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*mcp.CallToolResult, any, error) {
			return taskText("Hello, " + in.Name + "!"), nil, nil
		})

	ext.AddTool(&mcp.Tool{
		Name:        "slow_compute",
		Description: "Sleeps for the given number of seconds, as a task, then reports.",
		InputSchema: object(map[string]any{
			"seconds": map[string]any{"type": "number"},
			"label":   map[string]any{"type": "string"},
		}),
	}, tasks.Optional, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
		var in struct {
			Seconds float64 `json:"seconds"`
			Label   string  `json:"label"`
		}
		if err := t.Arguments(&in); err != nil {
			return nil, err
		}
		t.Status("computing " + in.Label)
		if err := sleep.For(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
			return nil, err
		}
		return taskText(fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds)), nil
	})

	ext.AddTool(&mcp.Tool{
		Name:        "failing_job",
		Description: "Runs as a task (required) and ends with a tool error after about a second.",
		InputSchema: object(map[string]any{}),
	}, tasks.Required, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
		if err := sleep.For(ctx, time.Second); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the job failed: input rejected"}}}, nil
	})

	ext.AddTool(&mcp.Tool{
		Name:        "protocol_error_job",
		Description: "Runs as a task and fails with a protocol error.",
		InputSchema: object(map[string]any{}),
	}, tasks.Optional, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
		panic("protocol_error_job always fails")
	})

	confirm := object(map[string]any{"confirm": map[string]any{"type": "boolean", "title": "Confirm"}}, "confirm")
	ext.AddTool(&mcp.Tool{
		Name:        "confirm_delete",
		Description: "Asks, as a task, whether to delete a file.",
		InputSchema: object(map[string]any{"filename": map[string]any{"type": "string"}}),
	}, tasks.Optional, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
		var in struct {
			Filename string `json:"filename"`
		}
		if err := t.Arguments(&in); err != nil {
			return nil, err
		}
		a, err := t.Ask(ctx, "confirm_delete", &mcp.ElicitParams{Message: "Delete " + in.Filename + "?", RequestedSchema: confirm})
		if err != nil {
			return nil, err
		}
		if ok, _ := a.Content["confirm"].(bool); a.Action == "accept" && ok {
			return taskText("deleted " + in.Filename), nil
		}
		return taskText("kept " + in.Filename + " (" + a.Action + ")"), nil
	})

	nameAndConfirm := object(map[string]any{
		"name":    map[string]any{"type": "string", "title": "Name"},
		"confirm": map[string]any{"type": "boolean", "title": "Confirm"},
	})
	ext.AddTool(&mcp.Tool{
		Name:        "multi_input",
		Description: "Asks two questions at once, as a task.",
		InputSchema: object(map[string]any{}),
	}, tasks.Optional, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		got := map[string]string{}
		var firstErr error
		for _, key := range []string{"first", "second"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := t.Ask(ctx, key, &mcp.ElicitParams{Message: "Your " + key + " answer?", RequestedSchema: nameAndConfirm})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					firstErr = err
					return
				}
				name, _ := a.Content["name"].(string)
				got[key] = a.Action + ":" + name
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return nil, firstErr
		}
		return taskText("first=" + got["first"] + " second=" + got["second"]), nil
	})

	userName := object(map[string]any{"name": map[string]any{"type": "string", "title": "Your name"}}, "name")
	server.AddTool(&mcp.Tool{
		Name:        "test_tool_with_task",
		Description: "Asks for a name over multi round-trip requests, then continues as a task.",
		InputSchema: object(map[string]any{}),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, ok := req.Params.InputResponses["user_name"].(*mcp.ElicitResult)
		if !ok {
			if !ask.Modes(req).Has(ask.Form) {
				return taskText("no name given: this client cannot be asked (it declared no form elicitation)"), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"user_name": &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: userName},
			}}, nil
		}
		name, _ := a.Content["name"].(string)
		if a.Action != "accept" || name == "" {
			return taskText("no name given (" + a.Action + ")"), nil
		}
		return ext.Start(ctx, req, tasks.Required, func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
			if err := sleep.For(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return taskText("Hello, " + name + "!"), nil
		})
	})
}

func taskText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
