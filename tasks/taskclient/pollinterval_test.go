package taskclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A pollInterval the server suggests, however large, is capped at
// MaxPollInterval: near the int64 maximum it used to wrap around to a
// negative wait, and the client polled back to back. A task that never
// ends within MaxPolls ends the wait with a PollsExhaustedError, which
// says every poll was answered, not that an answer could not be read.
func TestHugePollIntervalIsCapped(t *testing.T) {
	for _, ms := range []int64{math.MaxInt64, math.MaxInt64 / 1000, 9_223_372_036_855, 1e15, 30_001} {
		t.Run(strconv.FormatInt(ms, 10), func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
			if err := mcp.AddReceivingCustomMethod(server, tasks.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*rawResult, error) {
				return &rawResult{b: json.RawMessage(`{"resultType":"complete","taskId":"` + p.TaskID + `","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":` + strconv.FormatInt(ms, 10) + `}`)}, nil
			}); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
			defer srv.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
			if err := taskclient.Register(client); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			cs, err := client.Connect(ctx, taskclient.Transport(&mcp.StreamableClientTransport{Endpoint: srv.URL}), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var mu sync.Mutex
			var waits []time.Duration
			const maxPolls = 4
			tc := taskclient.New(cs, &taskclient.Options{
				MaxPolls:        maxPolls,
				MaxPollInterval: 30 * time.Second,
				// The waits are counted, not slept.
				Sleep: func(_ context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					waits = append(waits, d)
					return nil
				},
			})
			_, err = tc.Wait(ctx, "t1")
			var pe *taskclient.PollsExhaustedError
			if !errors.As(err, &pe) || pe.Polls != maxPolls || pe.Last.TaskID != "t1" || pe.Last.Status != tasks.StatusWorking {
				t.Fatalf("wait: %v (%#v), want a PollsExhaustedError after %d polls", err, err, maxPolls)
			}
			if msg := err.Error(); !strings.Contains(msg, `task t1 is still "working" after 4 polls, each answered`) || strings.Contains(msg, "could not be read") {
				t.Errorf("message: %s", msg)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(waits) != maxPolls-1 {
				t.Errorf("%d waits between %d polls: %v", len(waits), maxPolls, waits)
			}
			for _, d := range waits {
				if d != 30*time.Second {
					t.Errorf("waited %v between polls, want the cap of 30s: %v", d, waits)
					break
				}
			}
		})
	}
}
