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
	"time"

	"github.com/askback/askback/keys"
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

// interleave runs subject and baseline alternately in one loop, so that both
// see the same machine load, and reports each one's time per operation and
// their ratio (x-baseline).
func interleave(b *testing.B, subject, baseline func()) {
	b.Helper()
	var ts, tb time.Duration
	for b.Loop() {
		t0 := time.Now()
		subject()
		t1 := time.Now()
		baseline()
		t2 := time.Now()
		ts += t1.Sub(t0)
		tb += t2.Sub(t1)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "subject-ns/op")
	b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(ts)/float64(tb), "x-baseline")
}

// BenchmarkCodec measures Issue+Open of a typical state against the bare
// primitive (HMAC-SHA256 for signed, AES-256-GCM for sealed) computed and
// checked over the same bytes.
func BenchmarkCodec(b *testing.B) {
	ctx := context.Background()
	body := typicalBody(b)
	hmacKey := make([]byte, 32)
	bareHMAC := func() {
		m := hmac.New(sha256.New, hmacKey)
		m.Write(body)
		tag := m.Sum(nil)
		m = hmac.New(sha256.New, hmacKey)
		m.Write(body)
		if !hmac.Equal(tag, m.Sum(nil)) {
			b.Fatal("mismatch")
		}
	}
	block, _ := aes.NewCipher(make([]byte, 32))
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	bareAEAD := func() {
		if _, err := rand.Read(nonce); err != nil {
			b.Fatal(err)
		}
		ct := aead.Seal(nil, nonce, body, nil)
		if _, err := aead.Open(nil, nonce, ct, nil); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		mode     reqstate.Mode
		opts     *reqstate.IssueOptions
		baseline func()
	}{
		{"signed-vs-hmac", reqstate.Signed, nil, bareHMAC},
		{"sealed-vs-aead", reqstate.Sealed, nil, bareAEAD},
		{"sealed-single-use-vs-aead", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}, bareAEAD},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c, err := reqstate.New(&reqstate.Options{Mode: tc.mode, Keys: []keys.Key{key("k1", 1)}, Replay: replay.NewMemory(nil)})
			if err != nil {
				b.Fatal(err)
			}
			r1 := toolReq("alice", "deploy", args, "")
			r2 := toolReq("alice", "deploy", args, "")
			b.ReportAllocs()
			interleave(b, func() {
				s, err := c.Issue(r1, want, tc.opts)
				if err != nil {
					b.Fatal(err)
				}
				r2.Params.RequestState = s
				if _, err := reqstate.Open[deployState](ctx, c, r2); err != nil {
					b.Fatal(err)
				}
			}, tc.baseline)
		})
	}
}

// BenchmarkExchange measures a whole two-round exchange (input_required, then
// the retry with the answer and a sealed single-use state) over the in-memory
// transport, against a plain one-round tool call on the same connection.
func BenchmarkExchange(b *testing.B) {
	ctx := context.Background()
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 7)}, Replay: replay.NewMemory(nil)})
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
	call := func(tool string) func() {
		return func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%v %+v", err, res)
			}
		}
	}
	b.Run("two-round-sealed-vs-one-round-plain", func(b *testing.B) {
		b.ReportAllocs()
		interleave(b, call("deploy"), call("plain"))
	})
}
