package reqstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
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
		n, err := jsonscan.CanonicalNumber(string(v))
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

// canonicalCheckCases are arguments with whether they are their own
// canonical form (what a fast check took for canonical before the form
// was written by jsonscan's scanner).
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
	{`{"a":"é"}`, true},       // written as it is (the fast check was not sure)
	{`{"a":"<>&"}`, true},     // written as they are
	{`{"a":1}x`, false},       // trailing data
	{`{"a":1`, false},         // cut short
	{`[1,]`, false},           // not JSON
	{`{"a":tru}`, false},      // not JSON
	{strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40), true}, // deeper than the fast check went
}

func TestOwnCanonicalForm(t *testing.T) {
	for _, c := range canonicalCheckCases {
		out, err := CanonicalJSON([]byte(c.in))
		if own := err == nil && string(out) == c.in; own != c.canonical {
			t.Errorf("CanonicalJSON(%.40q) = %.40q, %v: its own canonical form %v, want %v", c.in, out, err, own, c.canonical)
		}
	}
}

// ArgsDigest makes the digest it made before its canonical form was
// written by jsonscan's scanner (formerArgsDigest), or refuses what it
// refused: a state issued before opens after.
func FuzzArgsDigestAsBefore(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add(s)
	}
	for _, c := range canonicalCheckCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ArgsDigest([]byte(s))
		want, wantErr := formerArgsDigest([]byte(s))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: ArgsDigest %s, %v; before %s, %v", s, got, err, want, wantErr)
		}
		if err != nil {
			if json.Valid([]byte(s)) && errors.Is(err, ErrAmbiguousArguments) != errors.Is(wantErr, ErrAmbiguousArguments) {
				t.Fatalf("%q: ArgsDigest refuses with %v, before with %v", s, err, wantErr)
			}
			return
		}
		if got != want {
			t.Fatalf("%q: ArgsDigest %s, before %s", s, got, want)
		}
	})
}
