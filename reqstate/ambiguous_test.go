package reqstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sendTool is a handler that decodes its arguments with encoding/json, which
// matches keys case-insensitively and keeps the last of two: round 1 asks to
// confirm the transfer, round 2 carries it out to the recipient in the state.
func sendTool(f *fixture) func(req *mcp.CallToolRequest) (string, error) {
	return func(req *mcp.CallToolRequest) (string, error) {
		var in struct {
			To     string `json:"to"`
			Amount int    `json:"amount"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return "", err
		}
		if req.Params.RequestState == "" {
			type confirm struct{ To string }
			s, err := f.codec.Issue(req, confirm{To: in.To}, &reqstate.IssueOptions{SingleUse: true})
			if err != nil {
				return "", err
			}
			return "state:" + s, nil
		}
		st, err := reqstate.Open[struct{ To string }](context.Background(), f.codec, req)
		if err != nil {
			return "", err
		}
		if st.To != in.To {
			return "", fmt.Errorf("confirmed %q, arguments say %q", st.To, in.To)
		}
		return fmt.Sprintf("sent %d to %s", in.Amount, in.To), nil
	}
}

// Keys that differ only in letter case, or repeat, at any depth, have no one
// meaning: Issue and Open refuse them, so a handler that decodes with
// encoding/json cannot be made to confirm one recipient and pay another.
func TestRefusesAmbiguousArguments(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		send := sendTool(f)
		// The attack: round 1 reads "bob" (last key), round 2 reorders and reads
		// "mallory"; the sorted canonical form is the same for both.
		round1 := `{"To":"mallory","to":"bob","amount":10}`
		round2 := `{"to":"bob","To":"mallory","amount":10}`
		_, err := send(toolReq("alice", "send", round1, ""))
		if !errors.Is(err, reqstate.ErrAmbiguousArguments) {
			t.Fatalf("%v: Issue for %s = %v, want ErrAmbiguousArguments", mode, round1, err)
		}
		// A state issued for clean arguments does not open with ambiguous ones.
		out, err := send(toolReq("alice", "send", `{"to":"bob","amount":10}`, ""))
		if err != nil {
			t.Fatal(err)
		}
		_, err = send(toolReq("alice", "send", round2, out[len("state:"):]))
		if !errors.Is(err, reqstate.ErrAmbiguousArguments) {
			t.Fatalf("%v: Open with %s = %v, want ErrAmbiguousArguments", mode, round2, err)
		}
		var je *jsonrpc.Error
		if !errors.As(reqstate.ClientError(err), &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != reqstate.AmbiguousArgumentsMessage {
			t.Fatalf("ClientError = %v, want invalid params saying the arguments are ambiguous", reqstate.ClientError(err))
		}
	}
	for _, in := range []string{
		`{"to":"bob","to":"mallory"}`,
		`{"order":{"to":"bob","TO":"mallory"}}`,
		`{"items":[{"id":1},{"id":2,"Id":3}]}`,
		`{"k":1,"\u212a":2}`,
	} {
		if _, err := reqstate.ArgsDigest([]byte(in)); !errors.Is(err, reqstate.ErrAmbiguousArguments) {
			t.Errorf("ArgsDigest(%s) = %v, want ErrAmbiguousArguments", in, err)
		}
	}
}
