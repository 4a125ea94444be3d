package main

import (
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

// The old way holds the call open and asks with elicitation/create; the
// answer arrives while the call waits, and the result reflects it.
func TestAsksWhileTheCallWaits(t *testing.T) {
	for _, c := range []struct {
		answer asktest.Answer
		want   string
	}{
		{asktest.Accept(map[string]any{"environment": "production", "confirm": true}), "Rolling out auth-service 2.4.1 to production."},
		{asktest.Decline(), "Deployment not started (decline)."},
		{asktest.Accept(map[string]any{"environment": "staging", "confirm": false}), "No deployment without confirmation."},
	} {
		client := asktest.NewClient(t, asktest.Server(newServer()), &asktest.Options{Era: asktest.Legacy})
		r := client.CallTool("deploy", map[string]any{"service": "auth-service"}, c.answer)
		if q := r.Questions[0]; q.Via != "elicitation/create" || !strings.Contains(q.Message, "version 2.4.1") {
			t.Errorf("question: %+v", q)
		}
		if got := r.Text(); got != c.want {
			t.Errorf("%s: %q, want %q", c.answer, got, c.want)
		}
	}
}

func TestNeedsAnAddress(t *testing.T) {
	if err := run("", "", false, nil, nil); err == nil || !strings.Contains(err.Error(), "-http") {
		t.Errorf("run without -http: %v", err)
	}
}
