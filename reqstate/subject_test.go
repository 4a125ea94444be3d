package reqstate_test

import (
	"testing"

	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subReq is toolReq as a verifier that leaves the user in the "sub" claim
// (TokenInfo.UserID empty) makes it.
func subReq(user, state string) mcp.Request {
	r := toolReq("", "deploy", args, state)
	if user != "" {
		r.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{Extra: map[string]any{"sub": user}}}
	}
	return r
}

// Both kinds of verifier name the same user: a state is bound to alice whether
// her token carries UserID or only "sub", and bob is refused either way.
func TestSubjectFromEitherKindOfVerifier(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	for _, c := range []struct {
		name         string
		issue, alice func(state string) mcp.Request
	}{
		{"UserID", func(s string) mcp.Request { return toolReq("alice", "deploy", args, s) }, func(s string) mcp.Request { return toolReq("alice", "deploy", args, s) }},
		{"sub", func(s string) mcp.Request { return subReq("alice", s) }, func(s string) mcp.Request { return subReq("alice", s) }},
		{"UserID then sub", func(s string) mcp.Request { return toolReq("alice", "deploy", args, s) }, func(s string) mcp.Request { return subReq("alice", s) }},
	} {
		s := issue(t, f, c.issue(""))
		if _, err := open(f, c.alice(s)); err != nil {
			t.Errorf("%s: alice's own state: %v", c.name, err)
		}
		for _, bob := range []mcp.Request{toolReq("bob", "deploy", args, s), subReq("bob", s), subReq("", s)} {
			_, err := open(f, bob)
			mustRefuse(t, err, reqstate.ErrOtherUser, c.name+": alice's state presented by someone else")
		}
	}
}
