package tasks_test

import (
	"context"
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRoundTrip compares a tasks/get poll with a plain synchronous tool
// call over the same in-memory session (the baseline): what one poll costs a
// client, relative to an ordinary request.
func BenchmarkRoundTrip(b *testing.B) {
	server, _ := newServer(b, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return text("echo"), nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := taskclient.Register(client); err != nil {
		b.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), taskclient.Transport(ct), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	tc := taskclient.New(cs, nil)
	ctx := context.Background()
	s, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "sleep"})
	if err != nil || s.Task == nil {
		b.Fatal("no task", err)
	}
	defer tc.Cancel(ctx, s.Task.TaskID)

	b.Run("baseline-tools-call", func(b *testing.B) {
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tasks-get", func(b *testing.B) {
		for b.Loop() {
			if _, err := tc.Get(ctx, s.Task.TaskID); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoreUpdate measures one read-modify-write of a record, the
// operation every status change, answer and poll of an orphan check uses.
func BenchmarkStoreUpdate(b *testing.B) {
	s := tasks.NewMemoryStore(nil)
	ctx := context.Background()
	if err := s.Create(ctx, &tasks.Record{ID: "t", Status: tasks.StatusWorking}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Update(ctx, "t", func(r *tasks.Record) error { r.StatusMessage = "x"; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
