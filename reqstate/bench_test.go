package reqstate_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// typicalBody is the size and shape of a typical state's claims.
func typicalBody(b *testing.B) []byte {
	body, err := json.Marshal(map[string]any{
		"v": 1, "iat": 1785240000000, "exp": 1785240600000, "sub": "alice",
		"m": "tools/call", "n": "deploy", "a": "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg",
		"p": deployState{Service: "auth-service", Version: "2.4.1"},
	})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkCodec measures Issue+Open of a typical state. Compare each mode
// with its baseline: the bare primitive over the same number of bytes.
func BenchmarkCodec(b *testing.B) {
	ctx := context.Background()
	for _, mode := range modes {
		b.Run(mode.String(), func(b *testing.B) {
			c, err := reqstate.New(reqstate.Options{Mode: mode, Keys: []reqstate.Key{key("k1", 1)}})
			if err != nil {
				b.Fatal(err)
			}
			r1 := toolReq("alice", "deploy", args, "")
			r2 := toolReq("alice", "deploy", args, "")
			b.ReportAllocs()
			for b.Loop() {
				s, err := c.Issue(r1, want)
				if err != nil {
					b.Fatal(err)
				}
				r2.Params.RequestState = s
				if _, err := reqstate.Open[deployState](ctx, c, r2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("single-use-sealed", func(b *testing.B) {
		c, err := reqstate.New(reqstate.Options{Keys: []reqstate.Key{key("k1", 1)}, Replay: replay.NewMemory(nil)})
		if err != nil {
			b.Fatal(err)
		}
		r1 := toolReq("alice", "deploy", args, "")
		r2 := toolReq("alice", "deploy", args, "")
		b.ReportAllocs()
		for b.Loop() {
			s, err := c.Issue(r1, want, reqstate.SingleUse())
			if err != nil {
				b.Fatal(err)
			}
			r2.Params.RequestState = s
			if _, err := reqstate.Open[deployState](ctx, c, r2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-hmac", func(b *testing.B) {
		body := typicalBody(b)
		k := make([]byte, 32)
		b.ReportAllocs()
		for b.Loop() {
			m := hmac.New(sha256.New, k)
			m.Write(body)
			tag := m.Sum(nil)
			m = hmac.New(sha256.New, k)
			m.Write(body)
			if !hmac.Equal(tag, m.Sum(nil)) {
				b.Fatal("mismatch")
			}
		}
	})
	b.Run("baseline-aead", func(b *testing.B) {
		body := typicalBody(b)
		block, _ := aes.NewCipher(make([]byte, 32))
		aead, _ := cipher.NewGCM(block)
		nonce := make([]byte, aead.NonceSize())
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rand.Read(nonce); err != nil {
				b.Fatal(err)
			}
			ct := aead.Seal(nil, nonce, body, nil)
			if _, err := aead.Open(nil, nonce, ct, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExchange measures a whole two-round exchange (input_required, then
// the retry with the answer and a sealed single-use state) over the in-memory
// transport, against a plain one-round tool call on the same connection.
func BenchmarkExchange(b *testing.B) {
	ctx := context.Background()
	codec, err := reqstate.New(reqstate.Options{Keys: []reqstate.Key{key("k1", 7)}, Replay: replay.NewMemory(nil)})
	if err != nil {
		b.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, deployTool(codec))
	mcp.AddTool(server, &mcp.Tool{Name: "plain"}, func(context.Context, *mcp.CallToolRequest, deployIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Rolling out auth-service 2.4.1 (accept)."}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"service": "auth-service"}
	for _, tool := range []string{"plain", "deploy"} {
		name := "one-round-plain"
		if tool == "deploy" {
			name = "two-round-sealed"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
