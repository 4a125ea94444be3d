package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

func sign(payload []byte) string {
	m := hmac.New(sha256.New, testKey)
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify is a correct server's check: lenient base64 decoding (trailing
// bits ignored, as Go's decoder does), then the MAC.
func verify(state string) bool {
	p, s, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	sig, err2 := base64.RawURLEncoding.DecodeString(s)
	if err1 != nil || err2 != nil {
		return false
	}
	m := hmac.New(sha256.New, testKey)
	m.Write(payload)
	return hmac.Equal(sig, m.Sum(nil))
}

// Every tampering variant must really change what a server reads: a
// correct verifier rejects all of them. (Changing only the unused bits of
// the last base64 character would not, and would accuse a good server.)
func TestTampersDefeatAVerifier(t *testing.T) {
	for _, payload := range []string{
		`{"service":"auth-service","version":"2.4.1","exp":"2026-01-02T03:04:05Z"}`,
		`{"a":1}`, `{"ab":true}`, `{"abc":"x"}`,
	} {
		state := sign([]byte(payload))
		if !verify(state) {
			t.Fatal("the test verifier rejects a good state")
		}
		ts := tampers(state)
		if len(ts) < 5 {
			t.Fatalf("only %d variants for %q", len(ts), state)
		}
		for _, tm := range ts {
			bad, ok := tm.apply(state)
			if !ok {
				t.Errorf("%s: does not apply to the state it was chosen for", tm.name)
				continue
			}
			if verify(bad) {
				t.Errorf("%s: %q still verifies", tm.name, bad)
			}
		}
	}
}

// A readable, unsigned state is edited value by value: the result decodes
// to the same fields with exactly one value changed, of the same type, and
// a time moves later.
func TestReadableEditsPreserveFormat(t *testing.T) {
	orig := map[string]any{"user": "alice", "exp": "2026-01-02T03:04:05Z", "n": 7, "ok": true}
	b, _ := json.Marshal(orig)
	state := base64.RawURLEncoding.EncodeToString(b)
	edits := 0
	for _, tm := range tampers(state) {
		if !strings.HasPrefix(tm.name, "readable") {
			continue
		}
		edits++
		bad, ok := tm.apply(state)
		if !ok {
			t.Fatalf("%s: not applicable", tm.name)
		}
		raw, err := base64.RawURLEncoding.DecodeString(bad)
		if err != nil {
			t.Fatalf("%s: no longer base64url: %v", tm.name, err)
		}
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: no longer JSON: %v", tm.name, err)
		}
		changed := 0
		for k, v := range orig {
			want, _ := json.Marshal(v)
			have, _ := json.Marshal(got[k])
			if string(want) != string(have) {
				changed++
				if k == "exp" {
					tt, err := time.Parse(time.RFC3339, got[k].(string))
					if err != nil || !tt.After(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
						t.Errorf("%s: exp = %v, want a later time", tm.name, got[k])
					}
				}
			}
		}
		if changed != 1 || len(got) != len(orig) {
			t.Errorf("%s: %s, want exactly one value changed", tm.name, raw)
		}
	}
	if edits != len(orig) {
		t.Errorf("%d readable edits, want one per value (%d)", edits, len(orig))
	}
}

// A payload that is not exactly one JSON object (a brace too many, a key
// twice) is not read as one: no edit of its values, which would rest on a
// reading the server may not share.
func TestReadableIsOneObject(t *testing.T) {
	for _, payload := range []string{`{"user":"alice","n":1}}`, `{"user":"alice"} {}`, `{"user":"alice","user":"bob"}`} {
		state := base64.RawURLEncoding.EncodeToString([]byte(payload))
		for _, tm := range tampers(state) {
			if strings.HasPrefix(tm.name, "readable") {
				t.Errorf("%s: %s", payload, tm.name)
			}
		}
	}
}

// A JWT-shaped state also gets the "alg":"none" attack.
func TestJWTAlgNone(t *testing.T) {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"alice"}`))
	state := h + "." + p + ".c2lnbmF0dXJl"
	for _, tm := range tampers(state) {
		if strings.Contains(tm.name, `"alg":"none"`) {
			bad, _ := tm.apply(state)
			head, _ := base64.RawURLEncoding.DecodeString(strings.Split(bad, ".")[0])
			if !strings.Contains(string(head), `"alg":"none"`) || !strings.HasSuffix(bad, ".") {
				t.Fatalf("alg none variant = %q (%s)", bad, head)
			}
			return
		}
	}
	t.Fatal("no alg none variant for a JWT")
}

func FuzzTampers(f *testing.F) {
	f.Add(sign([]byte(`{"a":"b","exp":1790000000}`)))
	f.Add("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig")
	f.Add(`{"plain":"json","n":1.5}`)
	f.Add("")
	f.Add("....")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, state string) {
		for _, tm := range tampers(state) {
			bad, ok := tm.apply(state)
			if ok && bad == state {
				t.Fatalf("%s: unchanged", tm.name)
			}
		}
	})
}

// A readable edit changes the value in place: key order and spacing stay
// as the server wrote them.
func TestReplaceLeafInPlace(t *testing.T) {
	raw := []byte(`{"z": 1, "nested": {"b": [1, {"c": 2}], "exp": 1790000000}, "a":"x"}`)
	cases := []struct {
		path []string
		val  string
		want string
	}{
		{[]string{"a"}, `"y"`, `{"z": 1, "nested": {"b": [1, {"c": 2}], "exp": 1790000000}, "a":"y"}`},
		{[]string{"z"}, `2`, `{"z": 2, "nested": {"b": [1, {"c": 2}], "exp": 1790000000}, "a":"x"}`},
		{[]string{"nested", "exp"}, `1790003600`, `{"z": 1, "nested": {"b": [1, {"c": 2}], "exp": 1790003600}, "a":"x"}`},
	}
	for _, c := range cases {
		got, ok := replaceLeaf(raw, c.path, []byte(c.val))
		if !ok || string(got) != c.want {
			t.Errorf("replaceLeaf(%v) = %s, %v\nwant %s", c.path, got, ok, c.want)
		}
	}
	for _, bad := range [][]string{{"nested"}, {"missing"}, {"nested", "b"}} {
		if _, ok := replaceLeaf(raw, bad, []byte(`0`)); ok {
			t.Errorf("replaceLeaf(%v) replaced something that is not a primitive value", bad)
		}
	}
}
