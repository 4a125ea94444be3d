package reqstate_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/reqstate"
)

// FuzzOpen feeds arbitrary states to a signed and a sealed codec. Opening must
// never panic, and must never accept a state the codec did not issue.
func FuzzOpen(f *testing.F) {
	// The fuzzing workers run this setup again: nonces must be the same in
	// each, so that "issued" means the same states everywhere.
	signed := newFixture(f, reqstate.Signed)
	sealed := newDeterministicFixture(f, reqstate.Sealed)
	issued := map[string]bool{}
	for _, fx := range []*fixture{signed, sealed} {
		for _, payload := range []any{want, "x", 0, nil, map[string]any{"a": []any{1, "b"}}} {
			s, err := fx.codec.Issue(toolReq("alice", "deploy", args, ""), payload, nil)
			if err != nil {
				f.Fatal(err)
			}
			issued[s] = true
			f.Add(s)
			f.Add(s + "-TAMPERED")
			f.Add(s[:len(s)/2])
		}
	}
	for _, s := range []string{"", ".", "e1.", "s1.", "e2.", "s2.", "e2.k1.", "s2.k1..", "s2.k1.AgA.", "e2.k1.AAAA", "e2.nope.AAAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fx := range []*fixture{signed, sealed} {
			var v any
			b, err := fx.codec.Bind(toolReq("alice", "deploy", args, s))
			if err != nil {
				t.Fatal(err)
			}
			err = fx.codec.Unseal(context.Background(), b, s, &v)
			if err == nil && !issued[s] {
				t.Fatalf("%v codec accepted a state it did not issue: %q", fx.codec.Mode(), s)
			}
			if err != nil && !reqstate.IsRefusal(err) {
				t.Fatalf("%v codec: error %v is not a refusal", fx.codec.Mode(), err)
			}
		}
	})
}

// FuzzCanonicalJSON checks that the canonical form is stable: canonicalising
// it again gives the same bytes.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{}`, `null`, ``, `{"b":1,"a":[1.0,2e3,"x"]}`, `[1,2]`, `"s"`, `{"a":{"b":{"c":-0}}}`, `1e400`, `{"a":"\u2028<>&"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := reqstate.CanonicalJSON([]byte(s))
		if err != nil {
			return
		}
		c2, err := reqstate.CanonicalJSON(c)
		if err != nil {
			t.Fatalf("canonical form %q does not parse: %v", c, err)
		}
		if string(c) != string(c2) {
			t.Fatalf("canonical form is not stable: %q then %q", c, c2)
		}
	})
}

// countingReader is a deterministic stand-in for crypto/rand.
type countingReader struct{ n uint64 }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], r.n)
		r.n++
		sum := sha256.Sum256(c[:])
		i += copy(p[i:], sum[:])
	}
	return len(p), nil
}

func newDeterministicFixture(t testing.TB, mode reqstate.Mode) *fixture {
	clk := newClock()
	c, err := reqstate.New(&reqstate.Options{Mode: mode, Keys: []keys.Key{key("k1", 1)}, Now: clk.Now, Rand: &countingReader{}})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{codec: c, clock: clk}
}
