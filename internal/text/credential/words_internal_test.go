package credential

import (
	"reflect"
	"testing"
)

// The allocation-free reading of a plain name finds what the full reading
// finds (and, reading no warnings in a name, may find more: "dontSharePassword").
func FuzzMatchPlainAgrees(f *testing.F) {
	for _, s := range []string{"X-Api-Key", "apiKey", "APIKey", "X-Csrf-Token", "token_count", "max_tokens", "X-Pat",
		"Pin-The-Issue", "pin_code", "newPassword", "Content-Type", "X-Passphrase", "card.number", "HTTPAuthToken", "a--b__c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		d := defaults()
		plain, ok := d.matchPlain(name)
		if !ok {
			return
		}
		if full := d.match(name, true); full != "" && plain == "" {
			t.Fatalf("matchPlain(%q) = %q, match = %q", name, plain, full)
		}
	})
}

// A message mayHold passes over holds nothing the walk would hide.
func FuzzMayHold(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"password":"a","n":4111111111111111,"s":"123-45-6789"}}}`,
		`{"result":{"action":"accept","content":{"x-Pat":"v","t":"Bearer x","k":"ghp_0123456789abcdef0123"}}}`,
		`{"params":{"arguments":{"env":"prod","ok":true}}}`,
		`{"params":{"arguments":{"s":"x"},"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"},"x/apiKey":"k","a/b":1}}}`,
	} {
		f.Add([]byte(s))
	}
	names := NewNames() // shared by the inputs, as a recording's Writer shares it
	f.Fuzz(func(t *testing.T, msg []byte) {
		held := mayHold(msg, nil)
		if again := mayHold(msg, names); again != held {
			t.Fatalf("mayHold(%s) = %v, with the keys remembered %v", msg, held, again)
		}
		if held {
			return
		}
		if out, secrets := walk(msg, nil); len(secrets) > 0 || string(out) != string(msg) {
			t.Fatalf("mayHold(%s) = false, but the walk hides %q", msg, secrets)
		}
	})
}

// The terms built anew for form.New are the default terms, and match as
// they do.
func TestBuiltDefaultTermsAreTheDefaults(t *testing.T) {
	built, shared := BuildDefaultTerms(), DefaultTerms()
	if !reflect.DeepEqual(built, shared) {
		t.Fatalf("BuildDefaultTerms differs from DefaultTerms:\n%+v\n%+v", built, shared)
	}
	for _, name := range []string{"password", "apiKey", "X-Csrf-Token", "token_count", "pin_code", "Pin the issue", "environment", "confirm", "card number"} {
		if got, want := built.MatchName(name), shared.MatchName(name); got != want {
			t.Errorf("MatchName(%q) = %q built anew, %q shared", name, got, want)
		}
	}
}
