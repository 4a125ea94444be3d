package session

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The probe is unanswered from the moment it is sent until its own answer
// comes; an answer to another request does not count.
func TestProbeWatch(t *testing.T) {
	var p probeWatch
	if p.unanswered() {
		t.Fatal("unanswered before any probe")
	}
	id, _ := jsonrpc.MakeID(float64(1))
	other, _ := jsonrpc.MakeID(float64(2))
	p.observe(true, &jsonrpc.Request{ID: id, Method: "server/discover"})
	p.observe(false, &jsonrpc.Response{ID: other})
	if !p.unanswered() {
		t.Fatal("the probe counts as answered by another request's answer")
	}
	p.observe(false, &jsonrpc.Response{ID: id})
	if p.unanswered() {
		t.Fatal("the probe's answer was not seen")
	}
}
