package session

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// OwnMistake is the tester's side's mistakes (KindAnswer), wrapped or
// not, and nothing the server did.
func TestOwnMistake(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{Kind: KindAnswer, Op: `tools/call "deploy"`, Err: errors.New("no answer was given for question \"target\"")}, true},
		{fmt.Errorf("task T1: %w", &Error{Kind: KindAnswer, Err: errors.New("answer does not match the requested schema")}), true},
		{&Error{Kind: KindServer, Err: &jsonrpc.Error{Code: -32602, Message: "unknown tool"}}, false},
		{&Error{Kind: KindProtocol, Err: errors.New("still asks after 3 rounds")}, false},
		{&Error{Kind: KindUnreachable, Err: errors.New("the server exited")}, false},
		{errors.New("not a session error"), false},
		{nil, false},
	} {
		if got := OwnMistake(tc.err); got != tc.want {
			t.Errorf("OwnMistake(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
