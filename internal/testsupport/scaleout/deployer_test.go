package scaleout_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const stateKey = "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef"

// cluster is n deployer instances behind a proxy, sharing one Redis (or
// none, when redisURL is empty).
type cluster struct {
	instances []*scaleout.Instance
	proxy     *scaleout.Proxy
	url       string // the proxy's MCP endpoint
}

func newCluster(t *testing.T, n int, redisURL string) *cluster {
	t.Helper()
	var args []string
	if redisURL != "" {
		args = []string{"-redis", redisURL}
	}
	c := &cluster{instances: scaleout.StartInstances(t, n, binary(t, "deployer"), []string{stateKey}, args...)}
	var bases []string
	for _, i := range c.instances {
		bases = append(bases, i.Base())
	}
	p, err := scaleout.NewProxy(bases...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	c.proxy, c.url = p, srv.URL+"/mcp"
	return c
}

// client is a 2026-07-28 client that declares forms and the tasks
// extension and drives the rounds by hand.
type client struct {
	cs    *mcp.ClientSession
	tasks *taskclient.Client
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "scaleout-test", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	cs, err := c.Connect(ctx, taskclient.Transport(&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &client{cs: cs, tasks: taskclient.New(cs, &taskclient.Options{DefaultPollInterval: 50 * time.Millisecond})}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

var deployArgs = map[string]any{"service": "auth-service"}

var yes = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}

// round1 calls deploy without answers and returns the sealed state.
func (c *client) round1(t *testing.T) string {
	t.Helper()
	res, err := c.cs.CallTool(ctxT(t, time.Minute), &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs})
	if err != nil {
		t.Fatalf("round 1: %v", err)
	}
	if !res.NeedsInput() || res.InputRequests["target"] == nil || res.RequestState == "" {
		t.Fatalf("round 1 did not ask: %+v", res)
	}
	return res.RequestState
}

// round2 repeats the call with the answer and the state.
func (c *client) round2(ctx context.Context, state string) (string, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs,
		InputResponses: mcp.InputResponseMap{"target": yes}, RequestState: state})
	if err != nil {
		return "", err
	}
	if res.NeedsInput() {
		return "", errors.New("round 2 asked again")
	}
	return textOf(res), nil
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

const deployed = "Rolling out auth-service 2.4.1 to production."

// Round 1 on instance A, round 2 on instance B: the conversation needs
// nothing of A. Replaying the single-use state afterwards, to either
// instance, is refused because the instances share the replay store.
func TestDeployAcrossInstances(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, nil)
	c := newCluster(t, 2, r.URL)
	cl := dial(t, c.url)

	c.proxy.Pin(0)
	state := cl.round1(t)
	before := c.proxy.Hits()
	c.proxy.Pin(1)
	got, err := cl.round2(ctxT(t, time.Minute), state)
	if err != nil || got != deployed {
		t.Fatalf("round 2 on B: %q, %v", got, err)
	}
	if h := c.proxy.Hits(); h[1] != before[1]+1 || h[0] != before[0] {
		t.Fatalf("round 2 was not served by B alone: hits %v -> %v", before, h)
	}

	for k, name := range []string{"A", "B"} {
		c.proxy.Pin(k)
		_, err := cl.round2(ctxT(t, time.Minute), state)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("replaying the used state to %s: %v, want an invalid-params refusal", name, err)
		}
	}
}

// The attack the shared store stops: with each instance keeping its own
// memory replay store, the state used on B is accepted again on A.
func TestWithoutSharedStoreReplayIsAccepted(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, "")
	cl := dial(t, c.url)
	c.proxy.Pin(0)
	state := cl.round1(t)
	c.proxy.Pin(1)
	if got, err := cl.round2(ctxT(t, time.Minute), state); err != nil || got != deployed {
		t.Fatalf("round 2 on B: %q, %v", got, err)
	}
	c.proxy.Pin(0)
	if got, err := cl.round2(ctxT(t, time.Minute), state); err != nil || got != deployed {
		t.Fatalf("expected the replay to A to pass without a shared store (this test documents why Redis is needed): %q, %v", got, err)
	}
}

// No sticky sessions: one client session's requests are spread round robin
// over three instances, every request on another instance than the one
// before, and every flow completes.
func TestNoStickySessions(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, nil)
	c := newCluster(t, 3, r.URL)
	cl := dial(t, c.url)
	for i := range 12 {
		state := cl.round1(t)
		got, err := cl.round2(ctxT(t, time.Minute), state)
		if err != nil || got != deployed {
			t.Fatalf("flow %d: %q, %v", i, got, err)
		}
	}
	for k, h := range c.proxy.Hits() {
		if h < 8 {
			t.Errorf("instance %d served %d requests; round robin should give each about a third (%v)", k, h, c.proxy.Hits())
		}
	}
}

func startRollout(t *testing.T, cl *client) string {
	t.Helper()
	st, err := cl.tasks.StartTool(ctxT(t, time.Minute), &mcp.CallToolParams{Name: "rollout",
		Arguments: map[string]any{"service": "auth-service", "version": "2.4.1"}})
	if err != nil {
		t.Fatalf("start rollout: %v", err)
	}
	if st.Task == nil {
		t.Fatalf("rollout did not start a task: %+v", st.Result)
	}
	return st.Task.TaskID
}

// waitStatus polls tasks/get until the task reaches status (bounded).
func waitStatus(t *testing.T, cl *client, id string, status tasks.Status, within time.Duration) *tasks.GetTaskResult {
	t.Helper()
	deadline := time.Now().Add(within)
	var last *tasks.GetTaskResult
	var err error
	for time.Now().Before(deadline) {
		last, err = cl.tasks.Get(ctxT(t, time.Minute), id)
		if err == nil && last.Status == status {
			return last
		}
		if err == nil && last.Status.Terminal() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("task %s did not reach %s within %s: last %+v, %v", id, status, within, last, err)
	return nil
}

var goOn = map[string]*mcp.ElicitResult{"decision": {Action: "accept", Content: map[string]any{"decision": "continue"}}}

// The rollout task runs on A; its question is read and answered through B,
// and the task, still on A, completes.
func TestTaskAnsweredThroughAnotherInstance(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, nil)
	c := newCluster(t, 2, r.URL)
	cl := dial(t, c.url)
	c.proxy.Pin(0)
	id := startRollout(t, cl)
	c.proxy.Pin(1)
	g := waitStatus(t, cl, id, tasks.StatusInputRequired, 2*time.Minute)
	if g.InputRequests["decision"] == nil {
		t.Fatalf("B does not show A's question: %+v", g)
	}
	if err := cl.tasks.Update(ctxT(t, time.Minute), id, goOn); err != nil {
		t.Fatal(err)
	}
	g = waitStatus(t, cl, id, tasks.StatusCompleted, 2*time.Minute)
	if !strings.Contains(string(g.Result), "complete: 10 of 10 instances updated") {
		t.Errorf("result: %s", g.Result)
	}
}

// An instance killed while its task waits leaves the task failed, with a
// reason, as soon as its heartbeat is stale: never stuck.
func TestInstanceKilledMidTask(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, nil)
	c := newCluster(t, 2, r.URL)
	cl := dial(t, c.url)
	c.proxy.Pin(0)
	id := startRollout(t, cl)
	c.proxy.Pin(1)
	waitStatus(t, cl, id, tasks.StatusInputRequired, 2*time.Minute)
	c.instances[0].Kill()
	g := waitStatus(t, cl, id, tasks.StatusFailed, 2*time.Minute)
	if g.Error == nil || !strings.Contains(g.Error.Message, "interrupted") {
		t.Errorf("failed without a clear reason: %+v", g.Error)
	}
	// An answer now is not taken by a task that no longer runs.
	if err := cl.tasks.Update(ctxT(t, time.Minute), id, goOn); err != nil {
		t.Errorf("update of the failed task: %v", err)
	}
	if g, _ := cl.tasks.Get(ctxT(t, time.Minute), id); g == nil || g.Status != tasks.StatusFailed {
		t.Errorf("the failed task changed: %+v", g)
	}
}

// The deploy example's transcript, through a round-robin proxy in front of two
// instances: `mcp-tester call` needs no affinity either.
func TestTesterThroughRoundRobin(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, nil)
	c := newCluster(t, 2, r.URL)
	io, _, out, errOut := iostreams.Test()
	code := cli.Main(context.Background(), io, []string{"call", "deploy", "-u", c.url, "--args", `{"service":"auth-service"}`,
		"--elicit", `accept:{"environment":"production","confirm":true}`})
	want := "[ELICIT] Roll out auth-service version 2.4.1 – where to? → accept {\"confirm\":true,\"environment\":\"production\"}\nContent 0 (Text):\nRolling out auth-service 2.4.1 to production.\n"
	if code != 0 || out.String() != want {
		t.Fatalf("exit %d\n got %q\nwant %q\n%s", code, out, want, errOut)
	}
	if h := c.proxy.Hits(); h[0] == 0 || h[1] == 0 {
		t.Errorf("the requests did not use both instances: %v", h)
	}
}
