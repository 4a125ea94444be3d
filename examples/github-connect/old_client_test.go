package main

import (
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

// A client on protocol 2025-11-25 reaches this stateless server without a session, so
// the server cannot ask it anything: it gets a normal result saying what to do (a
// question would fail the test: it gives no answer).
func TestOlderClientGetsAResult(t *testing.T) {
	s := newStack(t)
	c := asktest.NewClient(t, asktest.URL(s.appURL+"/mcp", "Authorization: Bearer alice-mcp-token"), &asktest.Options{Era: asktest.Legacy})
	r := c.CallTool("create_issue", map[string]any{"repo": "octo-alice/hello", "title": "Old"})
	if len(r.Questions) != 0 || r.Tool.IsError || !strings.Contains(r.Text(), "cannot ask this client to open a link") {
		t.Fatalf("asked %v, isError %v: %q", r.Questions, r.Tool.IsError, r.Text())
	}
}
