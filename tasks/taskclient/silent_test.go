package taskclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawResult is a result sent as it is.
type rawResult struct {
	mcp.ResultBase
	b json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.b, nil }

// pollingClient is a task client on a session of protocol 2026-07-28 with
// server over stateless Streamable HTTP, polling every 5 ms; both end with
// the test.
func pollingClient(t *testing.T, ctx context.Context, server *mcp.Server) *taskclient.Client {
	t.Helper()
	return taskclient.New(pollingSession(t, ctx, server), &taskclient.Options{DefaultPollInterval: 5 * time.Millisecond})
}

// pollingSession is the session of pollingClient.
func pollingSession(t *testing.T, ctx context.Context, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, taskclient.Transport(&mcp.StreamableClientTransport{Endpoint: srv.URL}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if taskclient.Legacy(cs) {
		t.Fatal("the session speaks an older protocol than the extension's")
	}
	return cs
}

// A task that says input_required and shows no question (a task of
// 2025-11-25 asked about in a session of 2026-07-28) ends the wait with a
// NoQuestionError after MaxSilentPolls polls, instead of polling until the
// context ends; one that shows its question is answered as ever.
func TestWaitForATaskThatShowsNoQuestion(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	var mu sync.Mutex
	polls := 0
	if err := mcp.AddReceivingCustomMethod(server, tasks.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*rawResult, error) {
		mu.Lock()
		polls++
		mu.Unlock()
		return &rawResult{b: json.RawMessage(`{"resultType":"complete","taskId":"` + p.TaskID + `","status":"input_required","statusMessage":"waiting","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tc := pollingClient(t, ctx, server)
	_, err := tc.Wait(ctx, "t1")
	var nq *taskclient.NoQuestionError
	if !errors.As(err, &nq) {
		t.Fatalf("wait: %v, want a NoQuestionError", err)
	}
	if nq.Last.TaskID != "t1" || nq.Polls != taskclient.MaxSilentPolls || !strings.Contains(err.Error(), "showed no question to answer") {
		t.Errorf("error: %+v: %v", nq, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if polls != taskclient.MaxSilentPolls {
		t.Errorf("%d polls, want %d", polls, taskclient.MaxSilentPolls)
	}
}
