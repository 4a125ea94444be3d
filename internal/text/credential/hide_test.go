package credential

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// A secret is hidden in every spelling a server can echo it in: JSON
// escapes of any character (either hex case, nested), percent-encoding, and
// a mix of them.
func TestHiderSpellings(t *testing.T) {
	const secret = `tok/en"s3cr3t+x y`
	h := NewHider([]string{secret})
	jsonOf := func(s string) string {
		b, _ := json.Marshal(s)
		return strings.Trim(string(b), `"`)
	}
	for _, text := range []string{
		secret,
		jsonOf(secret), // \" as Go writes it
		strings.ReplaceAll(jsonOf(secret), "/", `\/`), // \/ as other encoders write it
		`tok\u002fen\u0022s3cr3t+x y`,
		`tok\u002Fen\"s3cr3t\u002bx\u0020y`,
		`\u0074\u006f\u006b/en"s3cr3t+x y`,
		`tok\\u002fen\\\"s3cr3t+x y`, // JSON inside a JSON string
		url.QueryEscape(secret),
		url.PathEscape(secret),
		`tok%2fen%22s3cr3t%2Bx+y`,
		`tok%2Fen\"s3cr3t%2bx\u0020y`, // a mix
		`tok/en&#34;s3cr3t+x y`,       // XML, as a JUnit report writes it
		`tok&#x2F;en&quot;s3cr3t&#43;x&#32;y`,
	} {
		got := h.Hide("before " + text + " after")
		if got != "before "+Hidden+" after" {
			t.Errorf("Hide(%q) = %q", text, got)
		}
	}
	// Characters outside the BMP as a surrogate pair.
	h = NewHider([]string{"key😀secret"})
	if got := h.Hide(`"key\ud83d\ude00secret"`); got != `"`+Hidden+`"` {
		t.Errorf("surrogate pair: %q", got)
	}
	// Near misses stay as they are.
	h = NewHider([]string{"abcdef12"})
	for _, text := range []string{`abcdef1`, `abcdef13`, `abc\u0064ef1`, `abc%6`, `abc\u006`, `abc\`, `ABCDEF12`, `abc%zzdef12`} {
		if got := h.Hide(text); got != text {
			t.Errorf("Hide(%q) = %q, want it unchanged", text, got)
		}
	}
	// Short secrets are not hidden; the zero Hider hides nothing.
	if got := NewHider([]string{"abc"}).Hide("abc"); got != "abc" {
		t.Errorf("short secret hidden: %q", got)
	}
	var zero *Hider
	if zero.Hide("abcdef") != "abcdef" {
		t.Error("nil Hider changed the text")
	}
}

func FuzzHider(f *testing.F) {
	f.Add("s3cr3t/val", `x s3cr3t\u002fval %73%33cr3t/val`)
	f.Fuzz(func(t *testing.T, secret, text string) {
		if !utf8.ValidString(secret) || len(secret) > 1024 {
			return // JSON cannot spell bytes that are not UTF-8
		}
		h := NewHider([]string{secret})
		got := h.Hide(text)
		if len(secret) >= MinSecret && strings.Contains(got, secret) && !strings.Contains(Hidden, secret) {
			// What is left may only hold the secret where hiding made it
			// (the text around a Hidden can spell it anew only if the
			// secret overlaps "[redacted]").
			if !strings.Contains(text, Hidden) {
				t.Fatalf("Hide(%q) with secret %q left it: %q", text, secret, got)
			}
		}
		// The JSON spelling of the secret in the text is hidden.
		b, _ := json.Marshal(secret)
		if len(secret) >= MinSecret {
			if out := h.Hide(string(b)); strings.Contains(out, strings.Trim(string(b), `"`)) && !strings.Contains(Hidden, secret) {
				t.Fatalf("JSON spelling %s of %q not hidden: %q", b, secret, out)
			}
		}
	})
}

// A secret of backslashes against a text of backslashes ends quickly.
func TestHiderBackslashesBounded(t *testing.T) {
	h := NewHider([]string{strings.Repeat(`\`, 40) + "x"})
	text := strings.Repeat(`\`, 100000)
	if got := h.Hide(text); got != text {
		t.Fatal("changed a text without the secret")
	}
	h = NewHider([]string{`ab\cd\ef`})
	if got := h.Hide(`"ab\\cd\\\\ef"`); got != `"`+Hidden+`"` {
		t.Errorf("escaped backslashes: %q", got)
	}
}

// The output hides the command line's values that look like secrets, not
// every value of a flag whose name contains "key".
func TestCommandSecrets(t *testing.T) {
	got := CommandSecrets(`API_KEY=abcd/ef12gh GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 server -dupkeys tools/list --token s3cretvalue99 --api-key $KEY`)
	want := []string{"abcd/ef12gh", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "s3cretvalue99"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CommandSecrets = %q, want %q", got, want)
	}
}

// JSON quoted in XML: the escaped quote written as a reference.
func TestHiderJSONInXML(t *testing.T) {
	h := NewHider([]string{`s3cr3t/t0ken"x`})
	for _, text := range []string{`s3cr3t/t0ken\&#34;x`, `s3cr3t\&#x2f;t0ken\\\&quot;x`} {
		if got := h.Hide(text); got != Hidden {
			t.Errorf("Hide(%q) = %q", text, got)
		}
	}
}

// A secret encoded in base64 is hidden, alone or inside a longer encoded
// text, whatever its alignment, in either alphabet, padded or not.
func TestHiderBase64(t *testing.T) {
	const secret = "opaque-Tok3n?~value"
	h := NewHider([]string{secret})
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		for _, around := range [][2]string{{"", ""}, {"a", ""}, {"ab", "c"}, {"user:", "\n"}, {"{\"t\":\"", "\"}"}} {
			text := enc.EncodeToString([]byte(around[0] + secret + around[1]))
			got := h.Hide(text)
			if !strings.Contains(got, Hidden) {
				t.Errorf("base64 of %q: %q not hidden: %q", around[0]+secret+around[1], text, got)
				continue
			}
			// What is left holds at most two of the secret's bytes at
			// each end.
			left := strings.ReplaceAll(got, Hidden, "")
			if len(left) > len(text)-len(secret)*4/3+8 {
				t.Errorf("base64 of %q: too much left: %q", around[0]+secret+around[1], got)
			}
		}
	}
	// Ordinary base64 of other text is left as it is.
	other := base64.StdEncoding.EncodeToString([]byte("nothing secret in here at all"))
	if got := h.Hide(other); got != other {
		t.Errorf("other base64 changed: %q", got)
	}
}
