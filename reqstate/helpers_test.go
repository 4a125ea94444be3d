package reqstate_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clock is a settable clock shared by a codec and a replay store.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

func newClock() *clock { return &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

func key(id string, fill byte) keys.Key {
	return keys.Key{ID: id, Secret: bytes.Repeat([]byte{fill}, 32)}
}

type fixture struct {
	codec *reqstate.Codec
	clock *clock
	store *replay.Memory
}

func newFixture(t testing.TB, mode reqstate.Mode, ks ...keys.Key) *fixture {
	t.Helper()
	if len(ks) == 0 {
		ks = []keys.Key{key("k1", 1)}
	}
	clk := newClock()
	store := replay.NewMemory(&replay.MemoryOptions{Now: clk.Now})
	c, err := reqstate.New(&reqstate.Options{Mode: mode, Keys: ks, Now: clk.Now, Replay: store})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{codec: c, clock: clk, store: store}
}

// toolReq is a tools/call request as a server handler sees it.
func toolReq(user, tool, args, state string) *mcp.CallToolRequest {
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: json.RawMessage(args), RequestState: state},
	}
	if user != "" {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}}
	}
	return req
}

func promptReq(user, name string, args map[string]string, state string) *mcp.GetPromptRequest {
	req := &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: name, Arguments: args, RequestState: state}}
	if user != "" {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
	}
	return req
}

func resourceReq(user, uri, state string) *mcp.ReadResourceRequest {
	req := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri, RequestState: state}}
	if user != "" {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
	}
	return req
}

// deployState is a typical payload: what the user confirms in round 1.
type deployState struct {
	Service string `json:"service"`
	Version string `json:"version"`
}

var modes = []reqstate.Mode{reqstate.Sealed, reqstate.Signed}
