package tasks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveOnStore starts a server with the extension on store and returns a task
// client connected to it.
func serveOnStore(t *testing.T, store tasks.Store) *taskclient.Client {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "restart", Version: "1"}, nil)
	ext, err := tasks.Install(server, &tasks.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), time.Minute) // against a hang
		defer stop()
		_ = ext.Close(ctx)
	})
	schema := map[string]any{"type": "object"}
	ext.AddTool(&mcp.Tool{Name: "quick", InputSchema: schema}, tasks.Required,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "quick result"}}}, nil
		})
	ext.AddTool(&mcp.Tool{Name: "endless", InputSchema: schema}, tasks.Required,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			tk.Status("working on it")
			<-ctx.Done()
			return nil, context.Cause(ctx)
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), taskclient.Transport(ct), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return taskclient.New(cs, &taskclient.Options{DefaultPollInterval: time.Millisecond})
}

func TestServerRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	ctx := context.Background()
	store, err := tasks.OpenBoltStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := serveOnStore(t, store)
	quick, err := before.StartTool(ctx, &mcp.CallToolParams{Name: "quick"})
	if err != nil || quick.Task == nil {
		t.Fatalf("quick: %+v, %v", quick, err)
	}
	if _, err := before.Wait(ctx, quick.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	endless, err := before.StartTool(ctx, &mcp.CallToolParams{Name: "endless"})
	if err != nil || endless.Task == nil {
		t.Fatalf("endless: %+v, %v", endless, err)
	}
	if g, err := before.Get(ctx, endless.Task.TaskID); err != nil || g.Status != tasks.StatusWorking {
		t.Fatalf("endless before the crash: %+v, %v", g, err)
	}

	// The server dies without a word: its store file is released, nothing
	// else happens. A new server opens the same file.
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store2, err := tasks.OpenBoltStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store2.Close() })
	after := serveOnStore(t, store2)

	res, err := after.Wait(ctx, quick.Task.TaskID)
	if err != nil {
		t.Fatalf("finished task after restart: %v", err)
	}
	if tc, _ := res.Content[0].(*mcp.TextContent); tc == nil || tc.Text != "quick result" {
		t.Errorf("finished task's result after restart: %+v", res.Content)
	}
	g, err := after.Get(ctx, endless.Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != tasks.StatusFailed || g.Error == nil || !strings.Contains(g.Error.Message, "interrupted") {
		t.Errorf("interrupted task after restart: %s %+v, want failed as interrupted", g.Status, g.Error)
	}
	if !strings.Contains(g.StatusMessage, "Start it again") {
		t.Errorf("status message %q does not say what to do", g.StatusMessage)
	}
}
