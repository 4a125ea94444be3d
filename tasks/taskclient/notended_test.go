package taskclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A wait whose time runs out while a poll is under way, the earlier polls
// answered, ends as one that runs out between two polls: the task had not
// ended (a NotEndedError with its last status), not a server that did not
// answer. On a loaded machine either comes; the caller's exit code must
// not depend on which.
func TestWaitEndsDuringAPoll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wait, endWait := context.WithCancel(ctx)
	defer endWait()
	release := make(chan struct{}) // ends the poll under way when the test does
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	var mu sync.Mutex
	polls := 0
	if err := mcp.AddReceivingCustomMethod(server, tasks.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*rawResult, error) {
		mu.Lock()
		polls++
		n := polls
		mu.Unlock()
		if n > 1 {
			endWait() // the caller's time runs out during this poll
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("too late")
		}
		return &rawResult{b: json.RawMessage(`{"resultType":"complete","taskId":"` + p.TaskID + `","status":"working","statusMessage":"step 1","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	defer close(release) // before the server closes (pollingClient's cleanup)
	tc := pollingClient(t, ctx, server)
	_, err := tc.Wait(wait, "t1")
	var ne *taskclient.NotEndedError
	if !errors.As(err, &ne) {
		t.Fatalf("the wait ended with %v (%T), want a NotEndedError", err, err)
	}
	if ne.Last.Status != tasks.StatusWorking || ne.Last.StatusMessage != "step 1" {
		t.Errorf("last status %q (%q), want working (step 1)", ne.Last.Status, ne.Last.StatusMessage)
	}
}
