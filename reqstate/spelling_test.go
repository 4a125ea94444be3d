package reqstate_test

import (
	"errors"
	"testing"

	"github.com/askback/askback/reqstate"
)

// A state is bound to the exact spelling of what the handler acts on: a
// resource URI that a handler might normalise to the same resource, a tool
// or prompt name that looks the same, prompt arguments whose keys differ in
// letter case. Each is refused, never taken for the request it was issued
// for (the handler would act on what it reads, not on what was bound).
func TestOtherSpellingsAreOtherRequests(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	s := issue(t, f, resourceReq("alice", "file:///a/b", ""))
	for _, uri := range []string{"file:///a/%62", "FILE:///a/b", "file:///a/b/", "file:///a/./b", "file:///a//b", "file://localhost/a/b", "file:///a/b#x", "file:///a/b\u200b"} {
		_, err := open(f, resourceReq("alice", uri, s))
		mustRefuse(t, err, reqstate.ErrOtherRequest, "resource "+uri)
	}
	s = issue(t, f, toolReq("alice", "deploy", args, ""))
	for _, name := range []string{"Deploy", "d\u0435ploy", "deploy\u200b", "deploy ", "\ufeffdeploy", "deploy\u0301"} {
		_, err := open(f, toolReq("alice", name, args, s))
		mustRefuse(t, err, reqstate.ErrOtherRequest, "tool "+name)
	}
	s = issue(t, f, promptReq("alice", "p", map[string]string{"to": "bob"}, ""))
	_, err := open(f, promptReq("alice", "p", map[string]string{"to": "bob", "To": "mallory"}, s))
	if err == nil || errors.Is(err, reqstate.ErrMissing) {
		t.Errorf("prompt arguments whose keys differ only in case: %v, want a refusal", err)
	}
	if _, err := f.codec.Issue(promptReq("alice", "p", map[string]string{"to": "bob", "To": "mallory"}, ""), deployState{}, nil); err == nil {
		t.Error("a state was issued for prompt arguments whose keys differ only in case")
	}
}
