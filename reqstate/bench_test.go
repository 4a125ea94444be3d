package reqstate_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/benchratio"
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
		// floor: measured against the work it cannot skip, not the bare
		// primitive.
		floor bool
	}{
		{"signed-vs-hmac", reqstate.Signed, nil, false},
		{"sealed-vs-aead", reqstate.Sealed, nil, false},
		{"sealed-single-use-vs-aead", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}, false},
		{"sealed-single-use-vs-floor", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}, true},
	}
	// fuller: the subject against the fuller floor, which adds what every
	// implementation also does (see fullerFloor); the issue's figure for the
	// codec is this ratio.
	b.Run("sealed-single-use-vs-fuller-floor", func(b *testing.B) {
		c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Replay: benchReplay()})
		if err != nil {
			b.Fatal(err)
		}
		r1 := toolReq("alice", "deploy", args, "")
		r2 := toolReq("alice", "deploy", args, "")
		opts := &reqstate.IssueOptions{SingleUse: true}
		b.ReportAllocs()
		benchratio.Interleave(b, func() {
			s, err := c.Issue(r1, want, opts)
			if err != nil {
				b.Fatal(err)
			}
			r2.Params.RequestState = s
			if _, err := reqstate.Open[deployState](ctx, c, r2); err != nil {
				b.Fatal(err)
			}
		}, fullerFloor(b))
	})
	b.Run("fuller-floor-vs-aead", func(b *testing.B) {
		c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Replay: benchReplay()})
		if err != nil {
			b.Fatal(err)
		}
		sample, err := c.Issue(toolReq("alice", "deploy", args, ""), want, &reqstate.IssueOptions{SingleUse: true})
		if err != nil {
			b.Fatal(err)
		}
		msg, aad, err := reqstate.ProtectedBytes(c, sample)
		if err != nil {
			b.Fatal(err)
		}
		benchratio.Interleave(b, fullerFloor(b), bareAEAD(b, msg, aad))
	})
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c, err := reqstate.New(&reqstate.Options{Mode: tc.mode, Keys: []keys.Key{key("k1", 1)}, Replay: benchReplay()})
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
			if tc.floor {
				baseline = floor(b, msg, aad)
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
	// The floor itself against the bare primitive: what no implementation
	// of a sealed single-use state can skip costs this much already.
	b.Run("floor-vs-aead", func(b *testing.B) {
		c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Replay: benchReplay()})
		if err != nil {
			b.Fatal(err)
		}
		sample, err := c.Issue(toolReq("alice", "deploy", args, ""), want, &reqstate.IssueOptions{SingleUse: true})
		if err != nil {
			b.Fatal(err)
		}
		msg, aad, err := reqstate.ProtectedBytes(c, sample)
		if err != nil {
			b.Fatal(err)
		}
		benchratio.Interleave(b, floor(b, msg, aad), bareAEAD(b, msg, aad))
	})
}

// floor does the work that Issue+Open of a sealed single-use state cannot
// skip, and nothing else: one read from crypto/rand of the AEAD nonce and
// the single-use nonce, AES-GCM seal and open of the protected bytes, base64
// both ways (a state is text), the SHA-256 of the canonical arguments once
// per request (the issuing one and the opening one), one clock reading each
// (issued, then checked), and the nonce recorded in a map that holds every
// nonce claimed before (as the replay store holds them). It leaves out what
// is the codec's own: writing and parsing the claims, canonicalizing the
// arguments, encoding and decoding the payload, comparing the binding, and
// the replay store's lock, expiry order and bounds.
func floor(b *testing.B, msg, aad []byte) func() {
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
	canonical := []byte(args)
	var random [28]byte
	var ct, text, raw, pt []byte
	seen := map[[16]byte]int64{}
	return func() {
		if _, err := rand.Read(random[:]); err != nil {
			b.Fatal(err)
		}
		issued := time.Now().UnixMilli()
		sha256.Sum256(canonical)
		ct = aead.Seal(append(ct[:0], random[:12]...), random[:12], msg, aad)
		text = base64.RawURLEncoding.AppendEncode(text[:0], ct)
		sha256.Sum256(canonical)
		raw, err = base64.RawURLEncoding.AppendDecode(raw[:0], text)
		if err != nil {
			b.Fatal(err)
		}
		if pt, err = aead.Open(pt[:0], raw[:12], raw[12:], aad); err != nil {
			b.Fatal(err)
		}
		if time.Now().UnixMilli() < issued {
			b.Fatal("clock went back")
		}
		nonce := [16]byte(random[12:])
		if _, used := seen[nonce]; used {
			b.Fatal("nonce seen twice")
		}
		seen[nonce] = issued
	}
}

// fullerFloor is floor with the rest of the work that no implementation of
// a sealed single-use state bound to its request can skip, written as
// cheaply as it can be: the claims (user, tool, the arguments' SHA-256,
// issued and expiry times, the single-use nonce) in a fixed binary layout
// ahead of the payload's bytes, sealed; on open, the claims read back and
// compared with the opening request's (user, tool, digest), the expiry
// checked, and the nonce claimed in a map under a lock, as a store that
// several requests share must. The payload is carried as bytes made once:
// its encoding belongs to the caller's type. It still leaves out the
// replay store's expiry order and bounds, and every check a hostile state
// needs beyond the AEAD's (the layout is trusted once it authenticates).
func fullerFloor(b *testing.B) func() {
	block, err := aes.NewCipher(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
	payload, err := json.Marshal(want)
	if err != nil {
		b.Fatal(err)
	}
	const user, tool = "alice", "deploy"
	canonical := []byte(args)
	var random [28]byte
	var claims, ct, text, raw, pt []byte
	var mu sync.Mutex
	seen := map[[16]byte]int64{}
	return func() {
		if _, err := rand.Read(random[:]); err != nil {
			b.Fatal(err)
		}
		issued := time.Now().UnixMilli()
		digest := sha256.Sum256(canonical)
		claims = append(claims[:0], byte(len(user)))
		claims = append(claims, user...)
		claims = append(claims, byte(len(tool)))
		claims = append(claims, tool...)
		claims = append(claims, digest[:]...)
		claims = binary.BigEndian.AppendUint64(claims, uint64(issued))
		claims = binary.BigEndian.AppendUint64(claims, uint64(issued+int64(time.Hour/time.Millisecond)))
		claims = append(claims, random[12:]...)
		claims = append(claims, payload...)
		ct = aead.Seal(append(ct[:0], random[:12]...), random[:12], claims, nil)
		text = base64.RawURLEncoding.AppendEncode(text[:0], ct)

		raw, err = base64.RawURLEncoding.AppendDecode(raw[:0], text)
		if err != nil {
			b.Fatal(err)
		}
		if pt, err = aead.Open(pt[:0], raw[:12], raw[12:], nil); err != nil {
			b.Fatal(err)
		}
		got := sha256.Sum256(canonical)
		n := int(pt[0])
		if string(pt[1:1+n]) != user {
			b.Fatal("another user")
		}
		rest := pt[1+n:]
		n = int(rest[0])
		if string(rest[1:1+n]) != tool {
			b.Fatal("another tool")
		}
		rest = rest[1+n:]
		if [32]byte(rest[:32]) != got {
			b.Fatal("other arguments")
		}
		expiry := int64(binary.BigEndian.Uint64(rest[40:48]))
		if time.Now().UnixMilli() > expiry {
			b.Fatal("expired")
		}
		nonce := [16]byte(rest[48:64])
		mu.Lock()
		_, used := seen[nonce]
		if !used {
			seen[nonce] = expiry
		}
		mu.Unlock()
		if used {
			b.Fatal("nonce seen twice")
		}
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
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 7)}, Replay: benchReplay()})
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

// benchReplay is the replay store of the benchmarks: one user opens every
// state, as many as a run takes, so that user may hold all the store holds.
func benchReplay() *replay.Memory {
	return replay.NewMemory(&replay.MemoryOptions{MaxPerUser: replay.DefaultMaxEntries})
}
