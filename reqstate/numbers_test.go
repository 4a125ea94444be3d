package reqstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// payTool decodes its amount exactly (json.Number into big.Rat), as a handler
// of money would: round 1 asks to confirm the amount, round 2 pays what the
// arguments say.
func payTool(f *fixture) func(req *mcp.CallToolRequest) (string, error) {
	return func(req *mcp.CallToolRequest) (string, error) {
		dec := json.NewDecoder(strings.NewReader(string(req.Params.Arguments)))
		dec.UseNumber()
		var in struct {
			Amount json.Number `json:"amount"`
		}
		if err := dec.Decode(&in); err != nil {
			return "", err
		}
		amount, ok := new(big.Rat).SetString(in.Amount.String())
		if !ok {
			return "", fmt.Errorf("bad amount %s", in.Amount)
		}
		if req.Params.RequestState == "" {
			s, err := f.codec.Issue(req, struct{ Amount string }{amount.RatString()}, nil)
			if err != nil {
				return "", err
			}
			return "state:" + s, nil
		}
		st, err := reqstate.Open[struct{ Amount string }](context.Background(), f.codec, req)
		if err != nil {
			return "", err
		}
		if st.Amount != amount.RatString() {
			return "", fmt.Errorf("confirmed %s, paying %s", st.Amount, amount.RatString())
		}
		return "paid " + amount.RatString(), nil
	}
}

// Two numbers whose float64 values are equal but whose decimal values are not
// must not share a digest: a state confirmed for one does not open for the
// other, so an exact decoder cannot be made to act on another amount.
func TestNumbersBindTheirExactValue(t *testing.T) {
	for _, c := range []struct{ round1, round2 string }{
		{`{"amount":9007199254740992.0}`, `{"amount":9007199254740993.0}`},
		{`{"amount":0.1}`, `{"amount":0.10000000000000000001}`},
		{`{"amount":100000000000000000000000.0}`, `{"amount":100000000000000000000001.0}`},
		{`{"amount":1e400}`, `{"amount":1.0000000000000000001e400}`},
	} {
		f := newFixture(t, reqstate.Sealed)
		pay := payTool(f)
		out, err := pay(toolReq("alice", "pay", c.round1, ""))
		if err != nil {
			t.Fatal(err)
		}
		got, err := pay(toolReq("alice", "pay", c.round2, strings.TrimPrefix(out, "state:")))
		if !errors.Is(err, reqstate.ErrOtherRequest) {
			t.Errorf("state of %s opened with %s: %q, %v; want ErrOtherRequest", c.round1, c.round2, got, err)
		}
	}
}

// Spellings of one decimal value share a digest; different values never do.
func TestArgsDigestNumbers(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`, `0.1e1`, `1E+0`, `1.000e000`},
		{`0`, `-0`, `0.0`, `-0.0e5`, `0e-7`},
		{`-12.5`, `-125e-1`, `-0.125E2`},
		{`100`, `1e2`, `1.00e2`},
		{`1e21`, `1000000000000000000000`},
		{`1e22`, `10000000000000000000000`, `1.0e22`},
		{`0.000001`, `1e-6`},
		{`1e400`, `10e399`, `1.0e+400`},
		{`1e-400`, `0.1e-399`},
	}
	digest := func(n string) string {
		d, err := reqstate.ArgsDigest([]byte(`{"n":` + n + `}`))
		if err != nil {
			t.Fatalf("ArgsDigest(%s): %v", n, err)
		}
		return d
	}
	seen := map[string]string{}
	for _, group := range same {
		want := digest(group[0])
		for _, n := range group[1:] {
			if got := digest(n); got != want {
				t.Errorf("%s and %s: digests differ", group[0], n)
			}
		}
		if other, dup := seen[want]; dup {
			t.Errorf("%s and %s: same digest", other, group[0])
		}
		seen[want] = group[0]
	}
}

// An exponent too long for any decoder is refused, quickly, not read.
func TestArgsDigestRefusesHugeExponent(t *testing.T) {
	_, err := reqstate.ArgsDigest([]byte(`{"n":1e` + strings.Repeat("9", 100000) + `}`))
	if err == nil || !strings.Contains(err.Error(), "exponent") {
		t.Fatalf("ArgsDigest of a 100000-digit exponent = %v, want a refusal naming the exponent", err)
	}
}

// The keys of an object are checked in time linear in their number: an
// object of many keys (a body of a few hundred kilobytes) must not cost
// seconds of CPU in Issue and Open. Checked as a ratio in one run, against
// json.Valid over the same bytes, interleaved, with a wide margin for a busy
// machine: digesting 16,000 keys may take at most 300 times as long as
// validating them (it takes about 30; checking the keys pairwise took
// thousands).
func TestArgsDigestManyKeysLinear(t *testing.T) {
	var b strings.Builder
	b.WriteByte('{')
	for i := range 16000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"key%d":%d`, i, i)
	}
	b.WriteByte('}')
	in := []byte(b.String())
	// CPU time, not the clock's: on a busy machine a run longer than the
	// scheduler's slice waits for the processor (the digest's did, 300 ms
	// for its 20) while a shorter one (the validation's) does not.
	cpu := func() time.Duration {
		d, err := cpuuse.Self()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	digest, valid := time.Duration(1<<62), time.Duration(1<<62)
	for range 7 {
		start := cpu()
		for range 20 {
			if !json.Valid(in) {
				t.Fatal("not JSON")
			}
		}
		valid = min(valid, (cpu()-start)/20)
		start = cpu()
		if _, err := reqstate.ArgsDigest(in); err != nil {
			t.Fatal(err)
		}
		digest = min(digest, cpu()-start)
	}
	if digest > 300*valid {
		t.Fatalf("digesting 16,000 keys took %.0fx as long as validating them (%v, %v): not linear", float64(digest)/float64(valid), digest, valid)
	}
	t.Logf("digest/valid: %.1fx", float64(digest)/float64(valid))
}
