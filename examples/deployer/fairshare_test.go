package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The deployer has no users: every caller is anonymous, and its defaults
// give each client address its share. One client that takes every task
// place and every single-use state it can is refused beyond its share, and
// another client still starts a task and deploys. (-max-states 64 makes a
// share of states 4 instead of 65,536, to be reached in a test; the ratio
// is the default's.)
func TestOneAnonymousClientCannotExhaustTheOthers(t *testing.T) {
	dep := startDeployer(t, "-rollout-step", "1h", "-max-states", "64")
	fairShare(t, dep.Endpoint(), 16, 4)
}

// The same with two instances sharing Redis behind a proxy that names the
// client (X-Forwarded-For), which the instances are told to trust: the
// single-use states are counted in Redis, for all instances; each instance
// gives a client 16 of its own task places, whose records Redis counts per
// client too.
func TestOneAnonymousClientCannotExhaustTheOthersInRedis(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	var bases []string
	for range 2 {
		in := startDeployer(t, "-redis", r.URL, "-rollout-step", "1h", "-max-states", "64",
			"-proxy-header", "X-Forwarded-For", "-trusted-proxies", "127.0.0.1")
		bases = append(bases, in.Base())
	}
	p, err := scaleout.NewProxy(bases...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	fairShare(t, srv.URL+"/mcp", 2*16, 4)
}

// fairShare has the client at 127.0.0.2 take every task place and every
// single-use state it can at url, wants taskPlaces and states of them, and
// then has the client at 127.0.0.3 start a task and deploy.
func fairShare(t *testing.T, url string, taskPlaces, states int) {
	t.Helper()
	greedy := dialAs(t, url, "127.0.0.2")
	n := 0
	for ; n <= taskPlaces; n++ {
		_, err := startTask(greedy)
		if err != nil {
			if !strings.Contains(err.Error(), "the most one client address may have") {
				t.Fatalf("rollout %d of one client: %v, want a refusal of its share", n+1, err)
			}
			break
		}
	}
	if n != taskPlaces {
		t.Fatalf("one client started %d rollouts, want its share of %d", n, taskPlaces)
	}
	for n = 0; n <= states; n++ {
		if err := deployFlow(greedy); err != nil {
			if !strings.Contains(err.Error(), "try again later") {
				t.Fatalf("deploy %d of one client: %v, want the store's refusal", n+1, err)
			}
			break
		}
	}
	if n != states {
		t.Fatalf("one client completed %d deploys with single-use states, want its share of %d", n, states)
	}
	other := dialAs(t, url, "127.0.0.3")
	if _, err := startTask(other); err != nil {
		t.Fatalf("another client's rollout: %v", err)
	}
	if err := deployFlow(other); err != nil {
		t.Fatalf("another client's deploy: %v", err)
	}
}

// dialAs connects a 2026-07-28 client that declares forms and tasks to url
// from the loopback address ip.
func dialAs(t *testing.T, url, ip string) *mcp.ClientSession {
	t.Helper()
	hc := from(ip)
	t.Cleanup(hc.CloseIdleConnections)
	return taskSession(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1})
}

// startTask starts a rollout task.
func startTask(cs *mcp.ClientSession) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	st, err := taskclient.New(cs, nil).StartTool(ctx, &mcp.CallToolParams{Name: "rollout", Arguments: map[string]any{"service": "api", "version": "2.4.1"}})
	if err != nil {
		return "", err
	}
	if st.Task == nil {
		return "", fmt.Errorf("rollout answered without a task: %+v", st.Result)
	}
	return st.Task.TaskID, nil
}

// deployFlow runs deploy's two rounds; round 2 redeems a single-use state.
func deployFlow(cs *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	args := map[string]any{"service": "api"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err != nil {
		return err
	}
	if res.RequestState == "" {
		return fmt.Errorf("round 1 did not ask: %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "confirm": true}}}})
	if err != nil {
		return err
	}
	if res.NeedsInput() || len(res.Content) == 0 {
		return fmt.Errorf("round 2: %+v", res)
	}
	return nil
}
