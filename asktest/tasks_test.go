package asktest_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/asktest"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskServer runs migrate as a task (the tasks extension): it works for
// work, then asks whether to switch. Clients are told to poll every poll.
func taskServer(t testing.TB, poll time.Duration, work func()) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	ext, err := tasks.Install(s, &tasks.Options{PollInterval: poll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ext.Close(context.Background()) })
	ext.AddTool(&mcp.Tool{Name: "migrate", InputSchema: map[string]any{"type": "object"}}, tasks.Optional,
		func(ctx context.Context, task *tasks.Task) (*mcp.CallToolResult, error) {
			work()
			a, err := task.Ask(ctx, "switch", &mcp.ElicitParams{Message: "Copy done. Switch traffic?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"switch": map[string]any{"type": "boolean"}}, "required": []string{"switch"}}})
			if err != nil {
				return nil, err
			}
			if yes, _ := a.Content["switch"].(bool); a.Action == "accept" && yes {
				return text("Switched."), nil
			}
			return text("Not switched (%s).", a.Action), nil
		})
	return s
}

var switchYes = asktest.Accept(map[string]any{"switch": true})

// In a testing/synctest bubble, a task that works for half an hour, polled
// every ten minutes, ends at once: the polls wait on the bubble's clock.
// The question it asks on the way takes the answer given up front.
func TestTaskInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		srv := taskServer(t, 10*time.Minute, func() { time.Sleep(30 * time.Minute) })
		c := asktest.NewClient(t, asktest.Server(srv), nil)
		r := c.CallTool("migrate", nil, switchYes)
		if r.Text() != "Switched." || r.Task == nil || r.Task.Status != tasks.StatusCompleted {
			t.Errorf("result %q, task %+v", r.Text(), r.Task)
		}
		if len(r.Questions) != 1 || r.Questions[0].Via != "task" {
			t.Errorf("questions: %v", r.Questions)
		}
		if d := time.Since(start); d < 30*time.Minute {
			t.Errorf("the bubble's clock moved %s, want at least the task's half hour", d)
		}
	})
}

// Options.TaskSleep is the clock of the polls: it hears the interval the
// server suggests (capped at 30 s), and the task goes on when it says.
func TestTaskSleep(t *testing.T) {
	working := make(chan struct{})
	srv := taskServer(t, time.Hour, func() { <-working })
	var mu sync.Mutex
	var waits []time.Duration
	c := asktest.NewClient(t, asktest.Server(srv), &asktest.Options{TaskSleep: func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		if len(waits) == 0 {
			close(working) // the first poll saw the task working: let it go on
		}
		waits = append(waits, d)
		return nil
	}})
	if got := c.CallTool("migrate", nil, switchYes).Text(); got != "Switched." {
		t.Errorf("result %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) == 0 || waits[0] != 30*time.Second {
		t.Errorf("TaskSleep heard %v, want 30s first", waits)
	}
}

// A task whose result is marked isError ends the call with an error, as a
// direct call's does: it fails a test that did not want it, and WantError
// passes on it with the task's last state.
func TestTaskIsError(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	ext, err := tasks.Install(srv, &tasks.Options{PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ext.Close(context.Background()) })
	ext.AddTool(&mcp.Tool{Name: "migrate", InputSchema: map[string]any{"type": "object"}}, tasks.Required,
		func(ctx context.Context, task *tasks.Task) (*mcp.CallToolResult, error) {
			r := text("The copy failed: disk full.")
			r.IsError = true
			return r, nil
		})
	failing(t, "an isError task not wanted", func(ft *T) {
		asktest.NewClient(ft, asktest.Server(srv), nil).CallTool("migrate", nil)
	}, `CallTool("migrate"): tools/call "migrate": the tool reported an error (isError): The copy failed: disk full.`)
	r := asktest.NewClient(t, asktest.Server(srv), nil).CallTool("migrate", nil, asktest.WantError())
	if r.Err == nil || r.Task == nil || r.Task.Status != tasks.StatusCompleted || r.Text() != "The copy failed: disk full." {
		t.Errorf("Err %v, task %+v, text %q", r.Err, r.Task, r.Text())
	}
}
