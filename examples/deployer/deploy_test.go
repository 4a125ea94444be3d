package main

import (
	"testing"
	"time"

	"github.com/askback/askback/asktest"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/tasks"
)

// testServer is the deployer's server in memory: states sealed with a test
// key, stores in memory, a rollout that takes no time.
func testServer(t *testing.T) asktest.Target {
	st := &stores{replay: replay.NewMemory(nil), tasks: &tasks.Options{PollInterval: time.Millisecond}}
	srv, err := newServer("0123456789abcdef0123456789abcdef", st, &rolloutOptions{Step: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return asktest.Server(srv)
}

// deploy asks where to, and deploys there once confirmed: each case in
// both eras.
func TestDeploy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer asktest.Answer
		want   string
	}{
		{"production", asktest.Accept(map[string]any{"environment": "production", "confirm": true}), "Rolling out web 2.4.1 to production."},
		{"default", asktest.Accept(map[string]any{"confirm": true}), "Rolling out web 2.4.1 to staging."},
		{"unconfirmed", asktest.Accept(map[string]any{"confirm": false}), "No deployment without confirmation."},
		{"declined", asktest.Decline(), "Deployment not started (decline)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
				c := asktest.NewClient(t, testServer(t), &asktest.Options{Era: era})
				r := c.CallTool("deploy", map[string]any{"service": "web"}, tc.answer)
				if got := r.Text(); got != tc.want {
					t.Errorf("%q, want %q", got, tc.want)
				}
				if q := r.Questions[0]; q.Message != "Roll out web version 2.4.1 – where to?" {
					t.Errorf("asked %q", q.Message)
				}
			})
		})
	}
}

// rollout runs as a task and asks half-way.
func TestRollout(t *testing.T) {
	c := asktest.NewClient(t, testServer(t), nil)
	r := c.CallTool("rollout", map[string]any{"service": "web", "version": "2.4.1"},
		asktest.Accept(map[string]any{"decision": "continue"}))
	if got, want := r.Text(), "Rollout of web 2.4.1 complete: 10 of 10 instances updated."; got != want || r.Task == nil {
		t.Errorf("%q (task %v), want %q as a task", got, r.Task, want)
	}
}

// The scripts beside the deployer (deploy.mcp) pass, and so does the
// audit, in both eras.
func TestScriptsAndAudit(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		asktest.RunScripts(t, testServer(t), "*.mcp", &asktest.Options{Era: era})
		asktest.Audit(t, testServer(t), &asktest.AuditOptions{Era: era})
	})
}
