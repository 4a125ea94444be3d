package tasks_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServer has the pattern of the attack on the deployer: a tool that copies
// its argument into its status messages and into the question it asks, then
// waits for the answer.
func echoServer(t *testing.T, opts *tasks.Options) *mcp.Server {
	t.Helper()
	server, ext := newServer(t, opts)
	ext.AddTool(&mcp.Tool{Name: "echo", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			var in struct {
				Name string `json:"name"`
			}
			if err := tk.Arguments(&in); err != nil {
				return nil, err
			}
			tk.Status("Working on " + in.Name)
			tk.Progress(1, 2, "Still on "+in.Name)
			if _, err := tk.Ask(ctx, "go", &mcp.ElicitParams{Message: "Go on with " + in.Name + "?", RequestedSchema: confirmSchema}); err != nil {
				return nil, err
			}
			return text(in.Name), nil
		})
	return server
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// A flood of calls with large arguments, each copied into status messages
// and a question, is refused once the extension holds its limit of tasks:
// memory grows to a bound and stays there.
func TestFloodOfTasksIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a flood of a thousand calls and a heap bound: make test runs it, make check (-short) leaves it out")
	}
	server := echoServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	big := strings.Repeat("x", tasks.DefaultMaxArgumentBytes-100)
	call := func() error {
		_, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"name": big}})
		return err
	}
	var refused error
	for i := range tasks.DefaultMaxTasks + 50 {
		if err := call(); err != nil {
			if i < tasks.DefaultMaxTasks {
				t.Fatalf("call %d refused below the limit: %v", i, err)
			}
			refused = err
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), "too many unfinished tasks") {
		t.Fatalf("calls beyond %d tasks: %v, want a refusal that says so", tasks.DefaultMaxTasks, refused)
	}
	full := heapInUse()
	t.Logf("heap with %d tasks waiting: %d MiB", tasks.DefaultMaxTasks, full>>20)
	for range 300 {
		if err := call(); err == nil {
			t.Fatal("a call beyond the limit was accepted")
		}
	}
	if grown := int64(heapInUse()) - int64(full); grown > 8<<20 {
		t.Fatalf("heap grew by %d MiB over 300 refused calls; want it flat", grown>>20)
	}
	if full > 256<<20 {
		t.Fatalf("heap holds %d MiB with the extension full; want a bound well below", full>>20)
	}
	// Arguments above the limit never start a task.
	_, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"name": big + strings.Repeat("y", 200)}})
	if code := rpcCode(t, err); code != -32602 || !strings.Contains(err.Error(), "bytes, more than") {
		t.Fatalf("oversized arguments: %v", err)
	}
}

// What a task copies into its record is bounded: status messages are cut, and
// an answer too large for the record is refused with a message that says so.
func TestTaskRecordIsBounded(t *testing.T) {
	server := echoServer(t, &tasks.Options{MaxRecordBytes: 32 << 10})
	hs := httpServer(t, server)
	alice := httpClient(t, hs.URL, "alice")
	ctx := context.Background()
	name := strings.Repeat("é", 10000) // 20 kB
	s, err := alice.StartTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"name": name}})
	if err != nil {
		t.Fatal(err)
	}
	g := waitFor(t, alice, s.Task.TaskID, tasks.StatusInputRequired)
	if n := len(g.StatusMessage); n > tasks.MaxStatusBytes || !strings.HasSuffix(g.StatusMessage, "…") || !json.Valid([]byte(`"`+g.StatusMessage+`"`)) {
		t.Fatalf("status message of %d bytes (%q…), want at most %d ending in …", n, g.StatusMessage[:20], tasks.MaxStatusBytes)
	}
	huge := &mcp.ElicitResult{Action: "decline", Meta: mcp.Meta{"note": strings.Repeat("n", 40<<10)}}
	err = alice.Update(ctx, s.Task.TaskID, map[string]*mcp.ElicitResult{"go": huge})
	if code := rpcCode(t, err); code != -32602 || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("answer over the record limit: %v", err)
	}
	_ = alice.Cancel(ctx, s.Task.TaskID)
}

// One authenticated user cannot take every place: beyond MaxTasksPerUser the
// user is refused, and another user still starts tasks.
func TestTasksPerUserAreBounded(t *testing.T) {
	server, _ := newServer(t, &tasks.Options{MaxTasksPerUser: 3})
	hs := httpServer(t, server)
	alice, bob := httpClient(t, hs.URL, "alice"), httpClient(t, hs.URL, "bob")
	ctx := context.Background()
	var ids []string
	for range 3 {
		ids = append(ids, start(t, alice, "sleep").TaskID)
	}
	_, err := alice.StartTool(ctx, &mcp.CallToolParams{Name: "sleep"})
	if err == nil || !strings.Contains(err.Error(), "you have 3 unfinished tasks") {
		t.Fatalf("alice's 4th task: %v, want a refusal naming the limit", err)
	}
	start(t, bob, "sleep")
	// A finished task gives its place back.
	if err := alice.Cancel(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, alice, ids[0], tasks.StatusCancelled)
	deadline := time.Now().Add(time.Minute) // against a hang
	for {
		_, err := alice.StartTool(ctx, &mcp.CallToolParams{Name: "sleep"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after cancelling one: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// When every place is taken, by callers each within their share (clients at
// many addresses), a caller holding fewer than the one holding the most
// still starts a task: that caller's oldest task ends, saying why.
func TestTasksSharedWhenFull(t *testing.T) {
	server, _ := newServer(t, &tasks.Options{MaxTasks: 4, MaxTasksPerUser: 3})
	hs := httpServer(t, server)
	ctx := context.Background()
	alice, bob := httpClient(t, hs.URL, "alice"), httpClient(t, hs.URL, "bob")
	var aliceIDs []string
	for range 3 {
		aliceIDs = append(aliceIDs, start(t, alice, "sleep").TaskID)
	}
	start(t, bob, "sleep")
	// Full. carol and dave each take one of alice's places.
	for _, name := range []string{"carol", "dave"} {
		if _, err := httpClient(t, hs.URL, name).StartTool(ctx, &mcp.CallToolParams{Name: "sleep"}); err != nil {
			t.Fatalf("%s while every place is taken: %v", name, err)
		}
	}
	for _, id := range aliceIDs[:2] {
		g := waitFor(t, alice, id, tasks.StatusFailed)
		if !strings.Contains(g.StatusMessage, "gave this one's place to another caller's") {
			t.Errorf("alice's ended task says %q", g.StatusMessage)
		}
	}
	if g, err := alice.Get(ctx, aliceIDs[2]); err != nil || g.Status != tasks.StatusWorking {
		t.Fatalf("alice's newest task: %v %v, want it still working", g, err)
	}
	// Each holds one now: eve is refused, and so is alice's next.
	for _, c := range []*taskclient.Client{httpClient(t, hs.URL, "eve"), alice} {
		if _, err := c.StartTool(ctx, &mcp.CallToolParams{Name: "sleep"}); err == nil || !strings.Contains(err.Error(), "at most 4 unfinished tasks") {
			t.Fatalf("a task when everyone holds one: %v, want a refusal", err)
		}
	}
}

// The store keeps finished tasks until their TTL: one user who fills their
// share of it is refused with a message that says so, and another user
// still starts tasks.
func TestStoreShareOfOneUserIsBounded(t *testing.T) {
	store := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{Limits: tasks.StoreLimits{MaxRecordsPerUser: 3}})
	server, _ := newServer(t, &tasks.Options{Store: store})
	hs := httpServer(t, server)
	alice, bob := httpClient(t, hs.URL, "alice"), httpClient(t, hs.URL, "bob")
	ctx := context.Background()
	for range 3 {
		id := start(t, alice, "sleep").TaskID
		if err := alice.Cancel(ctx, id); err != nil {
			t.Fatal(err)
		}
		waitFor(t, alice, id, tasks.StatusCancelled)
	}
	_, err := alice.StartTool(ctx, &mcp.CallToolParams{Name: "sleep"})
	if err == nil || !strings.Contains(err.Error(), "task store is full for this user") || !strings.Contains(err.Error(), "try again later") {
		t.Fatalf("alice's 4th task with 3 kept: %v, want a refusal saying her share is full", err)
	}
	start(t, bob, "sleep")
}
