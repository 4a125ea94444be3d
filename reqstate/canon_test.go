package reqstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/askback/askback/internal/strictjson"
)

// referenceCanonical is the canonical form as encoding/json and strictjson
// compute it, slowly: the single-pass canonicalizer must agree with it on
// every input.
func referenceCanonical(raw []byte) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), nil
	}
	if err := strictjson.CheckKeys(raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	if v == nil {
		return []byte("{}"), nil
	}
	var buf bytes.Buffer
	if err := writeReference(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeReference(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		n, err := canonicalNumber(v)
		if err != nil {
			return err
		}
		buf.WriteString(n)
	case string:
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		buf.Truncate(buf.Len() - 1)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeReference(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeReference(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeReference(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("unexpected JSON value %T", v)
	}
	return nil
}

var canonSeeds = []string{
	``, ` `, `null`, `{}`, `[]`, `{"a":1}`, `{"b":[true,null,2.50],"a":1.0,"c":{"y":"é","x":1e2}}`,
	`{"s":"a\"b\\c\n\u0001\u2028<>&"}`, `{"\u00e9":1,"e":2}`, `"x"`, `-0`, `1E400`, `[1,2,[3,[4]]]`,
	`{"a":1,"A":2}`, `{"a":1,"a":2}`, `{"k":1,"\u212a":2}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `.5`,
	`{"a":1} x`, `"\ud800"`, "\"\xff\"", `tru`, `nul`, `[true false]`, `{"a":{"b":{"c":[{"d":"e"}]}}}`,
	`{"z":1,"y":{"b":2,"a":[{"q":1,"p":2}]},"x":"3"}`, `  {"a" : [ 1 , 2 ] }  `,
}

func TestCanonicalAgreesWithReference(t *testing.T) {
	for _, s := range canonSeeds {
		checkAgainstReference(t, []byte(s))
	}
}

func checkAgainstReference(t *testing.T, in []byte) {
	t.Helper()
	got, gotErr := appendCanonical(nil, in)
	want, wantErr := referenceCanonical(in)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference error %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		// On valid JSON both say whether the keys are ambiguous; on invalid
		// JSON either complaint will do.
		if json.Valid(in) && errors.Is(wantErr, strictjson.ErrAmbiguous) != errors.Is(gotErr, ErrAmbiguousArguments) {
			t.Fatalf("%q: error %v, reference error %v: not the same kind", in, gotErr, wantErr)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q: canonical %s, reference %s", in, got, want)
	}
}

func FuzzCanonicalAgreesWithReference(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkAgainstReference)
}

// Two JSON numbers have the same canonical form exactly when their decimal
// values are equal.
func FuzzCanonicalNumberExact(f *testing.F) {
	for _, p := range [][2]string{{"1", "1.0"}, {"9007199254740993.0", "9007199254740992"}, {"-0", "0e5"},
		{"0.1", "0.10000000000000000001"}, {"1e21", "1000000000000000000000"}, {"-1.5e-30", "-15e-31"}, {"12e3", "1.2E4"}} {
		f.Add(p[0], p[1])
	}
	number := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,3})?$`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !number.MatchString(a) || !number.MatchString(b) || len(a) > 200 || len(b) > 200 {
			return
		}
		ca, err := canonicalNumber(json.Number(a))
		if err != nil {
			t.Fatal(err)
		}
		cb, err := canonicalNumber(json.Number(b))
		if err != nil {
			t.Fatal(err)
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if (ca == cb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("%s → %s, %s → %s, equal values: %v", a, ca, b, cb, ra.Cmp(rb) == 0)
		}
		if !json.Valid([]byte(ca)) {
			t.Fatalf("%s → %s: not JSON", a, ca)
		}
	})
}

// Integers take a shortcut through the canonical form; it writes what
// canonicalNumber writes, at every length.
func TestIntegerShortcut(t *testing.T) {
	for _, n := range []string{"0", "-0", "7", "-7", "10", "1000", "-1000", "123456789012345678901", "-12345678901234567890", "1234567890123456789012", "100000000000000000000", "1000000000000000000000", "-100000000000000000000"} {
		want, err := canonicalNumber(json.Number(n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := CanonicalJSON([]byte(n))
		if err != nil || string(got) != want {
			t.Errorf("CanonicalJSON(%s) = %s, %v; canonicalNumber writes %s", n, got, err, want)
		}
	}
}

// canonicalCheckCases are arguments with what the fast check says of them:
// true only for text that is its own canonical form.
var canonicalCheckCases = []struct {
	in        string
	canonical bool
}{
	{`{"service":"auth-service"}`, true},
	{`{"a":1,"b":[true,false,null,"x",-12,0],"c":{}}`, true},
	{`{}`, true},
	{`[]`, true},
	{`"s"`, true},
	{`123456789012345678901`, true},
	{`1234567890123456789012`, false}, // longer than canonicalNumber keeps
	{``, false},
	{`null`, false},           // canonical form {}
	{`{"b":1,"a":2}`, false},  // order
	{`{"a":1,"a":2}`, false},  // repeated
	{`{"A":1,"a":2}`, false},  // equal under case folding
	{`{"a": 1}`, false},       // white space
	{` {"a":1}`, false},       // white space
	{`{"a":1.0}`, false},      // a fraction
	{`{"a":1e2}`, false},      // an exponent
	{`{"a":-0}`, false},       // -0 is 0
	{`{"a":01}`, false},       // not JSON
	{`{"a":"\u0041"}`, false}, // an escape
	{`{"a":"é"}`, false},      // not ASCII
	{`{"a":"<>&"}`, true},     // written as they are
	{`{"a":1}x`, false},       // trailing data
	{`{"a":1`, false},         // cut short
	{`[1,]`, false},           // not JSON
	{`{"a":tru}`, false},      // not JSON
	{strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40), false}, // deeper than the fast check goes
}

func TestIsCanonical(t *testing.T) {
	for _, c := range canonicalCheckCases {
		if got := isCanonical([]byte(c.in)); got != c.canonical {
			t.Errorf("IsCanonical(%.40q) = %v, want %v", c.in, got, c.canonical)
		}
		if !c.canonical {
			continue
		}
		out, err := CanonicalJSON([]byte(c.in))
		if err != nil || string(out) != c.in {
			t.Errorf("CanonicalJSON(%q) = %q, %v: not its own canonical form", c.in, out, err)
		}
	}
}

// Whatever the fast check takes for canonical is exactly what the
// canonicalizer writes for it: the digest of arguments does not depend on
// which of the two read them.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range canonicalCheckCases {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isCanonical([]byte(s)) {
			return
		}
		c, err := CanonicalJSON([]byte(s))
		if err != nil {
			t.Fatalf("fast check took %q, the canonicalizer refuses it: %v", s, err)
		}
		if string(c) != s {
			t.Fatalf("fast check took %q, its canonical form is %q", s, c)
		}
	})
}
