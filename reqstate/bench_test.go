package reqstate_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"testing"

	"github.com/askback/askback/internal/benchratio"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCodec measures Issue+Open of a typical state against the bare
// primitive (HMAC-SHA256 for signed, AES-256-GCM for sealed) computed and
// checked over the same bytes: the signed text of a signed state, the
// plaintext claims and additional data of a sealed one, taken from a state
// the codec issued. The baseline sets its key up once, as the codec does, and
// reuses its buffers; like Issue it reads a fresh nonce from crypto/rand.
//
// -benchtime 3125x makes 200,000 states of each kind (3,125 batches of 64);
// the single-use row leaves that many live nonces in the replay store.
func BenchmarkCodec(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name string
		mode reqstate.Mode
		opts *reqstate.IssueOptions
	}{
		{"signed-vs-hmac", reqstate.Signed, nil},
		{"sealed-vs-aead", reqstate.Sealed, nil},
		{"sealed-single-use-vs-aead", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c, err := reqstate.New(&reqstate.Options{Mode: tc.mode, Keys: []keys.Key{key("k1", 1)}, Replay: replay.NewMemory(nil)})
			if err != nil {
				b.Fatal(err)
			}
			r1 := toolReq("alice", "deploy", args, "")
			r2 := toolReq("alice", "deploy", args, "")
			sample, err := c.Issue(r1, want, tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			msg, aad, err := reqstate.ProtectedBytes(c, sample)
			if err != nil {
				b.Fatal(err)
			}
			baseline := bareAEAD(b, msg, aad)
			if tc.mode == reqstate.Signed {
				baseline = bareHMAC(b, msg)
			}
			b.ReportMetric(float64(len(msg)), "protected-bytes")
			b.ReportAllocs()
			benchratio.Interleave(b, func() {
				s, err := c.Issue(r1, want, tc.opts)
				if err != nil {
					b.Fatal(err)
				}
				r2.Params.RequestState = s
				if _, err := reqstate.Open[deployState](ctx, c, r2); err != nil {
					b.Fatal(err)
				}
			}, baseline)
		})
	}
}

// bareHMAC computes and checks an HMAC-SHA256 tag of msg, with the key set
// up once.
func bareHMAC(b *testing.B, msg []byte) func() {
	m := hmac.New(sha256.New, make([]byte, 32))
	var tag, check []byte
	return func() {
		m.Reset()
		m.Write(msg)
		tag = m.Sum(tag[:0])
		m.Reset()
		m.Write(msg)
		if check = m.Sum(check[:0]); !hmac.Equal(tag, check) {
			b.Fatal("mismatch")
		}
	}
}

// bareAEAD seals msg with AES-256-GCM under a fresh random nonce and opens it.
func bareAEAD(b *testing.B, msg, aad []byte) func() {
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	var ct, pt []byte
	return func() {
		if _, err := rand.Read(nonce); err != nil {
			b.Fatal(err)
		}
		ct = aead.Seal(ct[:0], nonce, msg, aad)
		if pt, err = aead.Open(pt[:0], nonce, ct, aad); err != nil {
			b.Fatal(err)
		}
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
		benchratio.Interleave(b, call("deploy"), call("plain"))
	})
}
