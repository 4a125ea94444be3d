package reqstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

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

// manyKeys is an object of n keys, key0 to key(n-1), in that order or
// the reverse, with extra written after them.
func manyKeys(n int, reverse bool, extra string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for k := range n {
		i := k
		if reverse {
			i = n - 1 - k
		}
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"key%d":%d`, i, i)
	}
	b.WriteString(extra)
	b.WriteByte('}')
	return []byte(b.String())
}

// An object of many keys (a body of a few hundred kilobytes) is digested
// whole: its keys in any order give one digest, and a key given twice is
// found however far apart its two places are. That the keys are checked
// in time linear in their number (checking them pairwise took thousands of
// times as long as validating the bytes) is a figure of
// BenchmarkDigestManyKeys (make bench, section reqstate; BENCHMARKS.md,
// "One JSON scanner for the arguments and the payload"), not asserted here.
func TestArgsDigestManyKeys(t *testing.T) {
	const n = 16000
	forward, err := reqstate.ArgsDigest(manyKeys(n, false, ""))
	if err != nil {
		t.Fatal(err)
	}
	backward, err := reqstate.ArgsDigest(manyKeys(n, true, ""))
	if err != nil {
		t.Fatal(err)
	}
	if forward != backward {
		t.Errorf("%d keys in reverse order: another digest", n)
	}
	if _, err := reqstate.ArgsDigest(manyKeys(n, false, `,"key0":0`)); err == nil || !strings.Contains(err.Error(), `key "key0" appears twice`) {
		t.Errorf("%d keys and key0 again at the end: %v, want a refusal naming key0", n, err)
	}
}
