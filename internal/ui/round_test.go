package ui

import (
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The first question of a round that asks several is shown with the
// round's later questions (as the session gives them), in the order the
// session asks them; an answer given there is the answer to the later
// question when the session asks it, and the person is not asked again.
func TestRoundShownTogether(t *testing.T) {
	s := &Server{}
	c := &call{}
	s.calls = append(s.calls, c)
	later := []*answer.Question{
		{Key: "b", Round: 1, Via: exchange.ViaInputRequired, Params: &mcp.ElicitParams{Message: "Who?"}},
		{Key: "c", Round: 1, Via: exchange.ViaInputRequired, Params: &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/in"}},
	}
	first := &answer.Question{Key: "a", Round: 1, Via: exchange.ViaInputRequired, Params: &mcp.ElicitParams{Message: "Where?"}, Later: later}
	a := &pageAnswerer{s: s}
	res, parts := a.together(first)
	if res != nil || len(parts) != 3 || parts[0].Q != first || parts[1].Q.Key != "b" || parts[2].Q.Key != "c" {
		t.Fatalf("together(a) = %v, %d parts; want a, b and c", res, len(parts))
	}
	c.prepared = map[string]*mcp.ElicitResult{"b": {Action: "decline"}}
	if res, parts := a.together(later[0]); res == nil || res.Action != "decline" || parts != nil {
		t.Errorf("together(b) = %v, %v; want the answer given with a", res, parts)
	}
	if res, parts := a.together(later[1]); res != nil || parts != nil {
		t.Errorf("together(c) = %v, %v; want nothing (no answer prepared, no later questions)", res, parts)
	}
}
