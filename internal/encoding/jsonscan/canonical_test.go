package jsonscan

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
)

// canonicalReference is the canonical form as encoding/json computes it,
// slowly, after refCheckKeys: Canonical must agree with it on every input.
func canonicalReference(raw []byte) ([]byte, error) {
	if err := refCheckKeys(raw); err != nil {
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
		n, err := CanonicalNumber(string(v))
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

var canonicalSeeds = []string{
	``, ` `, `null`, `{}`, `[]`, `{"a":1}`, `{"b":[true,null,2.50],"a":1.0,"c":{"y":"é","x":1e2}}`,
	`{"s":"a\"b\\c\n\u0001\u2028<>&"}`, `{"\u00e9":1,"e":2}`, `"x"`, `-0`, `1E400`, `[1,2,[3,[4]]]`,
	`{"a":1,"A":2}`, `{"a":1,"a":2}`, `{"k":1,"\u212a":2}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `.5`,
	`{"a":1} x`, `"\ud800"`, "\"\xff\"", `tru`, `nul`, `[true false]`, `{"a":{"b":{"c":[{"d":"e"}]}}}`,
	`{"z":1,"y":{"b":2,"a":[{"q":1,"p":2}]},"x":"3"}`, `  {"a" : [ 1 , 2 ] }  `, `{"a":{"y":1,"x":2},"A":3}`,
	`{"b":{"d":1,"c":2},"a":[{"f":1,"e":{"h":1,"g":2}}]}`, `{"é":1,"z":2,"\u00e8":3}`, `{"a":1e99999}`,
	manyKeysObject(40, ""), manyKeysObject(40, "k7"), `{"a":[1,2}`, `{"a":1,"a":`,
}

func TestCanonicalAgreesWithReference(t *testing.T) {
	for _, s := range canonicalSeeds {
		checkCanonical(t, []byte(s))
	}
	deep := strings.Repeat(`[`, MaxDepth+1) + strings.Repeat(`]`, MaxDepth+1)
	if _, err := Canonical(nil, []byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Canonical of %d arrays: %v, want ErrTooDeep", MaxDepth+1, err)
	}
}

// checkCanonical holds Canonical to the reference: the same bytes, or both
// refusing (for the same reason on JSON), and the form its own.
func checkCanonical(t *testing.T, in []byte) {
	t.Helper()
	got, gotErr := Canonical([]byte("prefix"), in)
	want, wantErr := canonicalReference(in)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference error %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		if json.Valid(in) && errors.Is(wantErr, ErrAmbiguous) != errors.Is(gotErr, ErrAmbiguous) {
			t.Fatalf("%q: error %v, reference error %v: not the same kind", in, gotErr, wantErr)
		}
		if json.Valid(in) && errors.Is(wantErr, ErrAmbiguous) && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, reference error %v", in, gotErr, wantErr)
		}
		return
	}
	if string(got) != "prefix"+string(want) {
		t.Fatalf("%q: canonical %s, reference %s", in, got, want)
	}
	again, err := Canonical(nil, want)
	if err != nil || !bytes.Equal(again, want) {
		t.Fatalf("%q: canonical form %s is not its own: %s, %v", in, want, again, err)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkCanonical)
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
		ca, err := CanonicalNumber(a)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := CanonicalNumber(b)
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
// CanonicalNumber writes, at every length.
func TestIntegerShortcut(t *testing.T) {
	for _, n := range []string{"0", "-0", "7", "-7", "10", "1000", "-1000", "123456789012345678901", "-12345678901234567890", "1234567890123456789012", "100000000000000000000", "1000000000000000000000", "-100000000000000000000"} {
		want, err := CanonicalNumber(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Canonical(nil, []byte(n))
		if err != nil || string(got) != want {
			t.Errorf("Canonical(%s) = %s, %v; CanonicalNumber writes %s", n, got, err, want)
		}
	}
}
