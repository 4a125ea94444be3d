package reqstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	k, _ := keys.New("2026-07")
	codec, _ := reqstate.New(&reqstate.Options{
		Keys:   []keys.Key{k},         // the first key seals; all of them open
		Replay: replay.NewMemory(nil), // for SingleUse
	})

	// Round 1: the handler issues a state bound to the request.
	round1 := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "deploy", Arguments: json.RawMessage(`{"service":"auth-service"}`),
	}}
	state, _ := codec.Issue(round1, deployState{Service: "auth-service", Version: "2.4.1"}, &reqstate.IssueOptions{SingleUse: true})

	// Round 2: the client repeats the call with the state.
	round2 := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "deploy", Arguments: json.RawMessage(`{ "service": "auth-service" }`), RequestState: state,
	}}
	st, err := reqstate.Open[deployState](context.Background(), codec, round2)
	fmt.Println(st.Version, err)

	// The same state again: refused, and the client gets a neutral error.
	_, err = reqstate.Open[deployState](context.Background(), codec, round2)
	fmt.Println(errors.Is(err, reqstate.ErrReused))
	fmt.Println(reqstate.ClientError(err))
	// Output:
	// 2.4.1 <nil>
	// true
	// requestState is invalid or expired; send the request again without requestState and inputResponses
}

// Rotating keys: the new key seals, the old one still opens until it is
// removed from the list.
func ExampleNew_rotation() {
	old, _ := keys.New("2026-06")
	next, _ := keys.New("2026-07")
	req := func(state string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "deploy", RequestState: state}}
	}

	before, _ := reqstate.New(&reqstate.Options{Keys: []keys.Key{old}})
	state, _ := before.Issue(req(""), "2.4.1", nil)

	during, _ := reqstate.New(&reqstate.Options{Keys: []keys.Key{next, old}})
	v, err := reqstate.Open[string](context.Background(), during, req(state))
	fmt.Println(v, err)

	after, _ := reqstate.New(&reqstate.Options{Keys: []keys.Key{next}})
	_, err = reqstate.Open[string](context.Background(), after, req(state))
	fmt.Println(errors.Is(err, reqstate.ErrUnknownKey))
	// Output:
	// 2.4.1 <nil>
	// true
}
