package reqstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	k, _ := reqstate.NewKey("2026-07")
	codec, _ := reqstate.New(reqstate.Options{
		Keys:   []reqstate.Key{k},     // the first key seals; all of them open
		Replay: replay.NewMemory(nil), // for SingleUse
	})

	// Round 1: the handler issues a state bound to the request.
	round1 := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "deploy", Arguments: json.RawMessage(`{"service":"auth-service"}`),
	}}
	state, _ := codec.Issue(round1, deployState{Service: "auth-service", Version: "2.4.1"}, reqstate.SingleUse())

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
