package taskclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A task that asks more than MaxQuestions questions in one poll, or more
// than ten times that in one wait (new ones at every poll), ends the wait
// with a TooManyQuestionsError naming the count and the bound, before any
// question past the bound is answered.
func TestWaitForATaskThatAsksTooMuch(t *testing.T) {
	for _, c := range []struct {
		perPoll      int
		wantAnswered int
		want         string
	}{
		{taskclient.MaxQuestions + 1, 0, fmt.Sprintf("task t1 asks %d questions at once (inputRequests); the client answers at most %d at once; stopped", taskclient.MaxQuestions+1, taskclient.MaxQuestions)},
		{60, 960, "task t1 asks 1020 questions in all (960 answered, 60 more); the client answers at most 1000 for one task; stopped"},
	} {
		t.Run(fmt.Sprint(c.perPoll), func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
			var mu sync.Mutex
			polls := 0
			if err := mcp.AddReceivingCustomMethod(server, tasks.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*rawResult, error) {
				mu.Lock()
				polls++
				n := polls
				mu.Unlock()
				qs := map[string]any{}
				for i := range c.perPoll {
					qs[fmt.Sprintf("p%d-q%d", n, i)] = map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "Q", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}
				}
				b, _ := json.Marshal(qs)
				return &rawResult{b: json.RawMessage(`{"resultType":"complete","taskId":"` + p.TaskID + `","status":"input_required","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5,"inputRequests":` + string(b) + `}`)}, nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := mcp.AddReceivingCustomMethod(server, tasks.MethodUpdate, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.UpdateTaskParams) (*rawResult, error) {
				return &rawResult{b: json.RawMessage(`{"resultType":"complete"}`)}, nil
			}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			answered := 0
			tc := taskclient.New(pollingSession(t, ctx, server), &taskclient.Options{DefaultPollInterval: 5 * time.Millisecond,
				Answer: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					answered++
					return &mcp.ElicitResult{Action: "decline"}, nil
				}})
			_, err := tc.Wait(ctx, "t1")
			var tm *taskclient.TooManyQuestionsError
			if !errors.As(err, &tm) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("wait: %v, want a TooManyQuestionsError: %s", err, c.want)
			}
			if answered != c.wantAnswered {
				t.Errorf("%d questions answered, want %d", answered, c.wantAnswered)
			}
		})
	}
}
