package login_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
)

func entry(server, identity string) *login.Entry {
	return &login.Entry{Server: server, Identity: identity, Grant: login.GrantAuthorizationCode, ClientID: "c",
		AccessToken: "at-" + identity, RefreshToken: "rt", Expiry: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Scopes: []string{"mcp"}}
}

func TestCacheRoundTrip(t *testing.T) {
	c := &login.Cache{Dir: filepath.Join(t.TempDir(), "a", "tokens")}
	if err := c.Save(entry("HTTP://Example.COM:80/mcp#frag", "default")); err != nil {
		t.Fatal(err)
	}
	// Another spelling of the same server finds it.
	e, err := c.Load("http://example.com/mcp", "default")
	if err != nil || e == nil || e.AccessToken != "at-default" || e.Server != "http://example.com/mcp" {
		t.Fatalf("load: %+v, %v", e, err)
	}
	if e, err := c.Load("http://example.com/mcp", "bob"); e != nil || err != nil {
		t.Fatalf("bob has no login, got %+v, %v", e, err)
	}
	if err := c.Save(entry("https://other.example/mcp", "bob")); err != nil {
		t.Fatal(err)
	}
	list, problems, err := c.List()
	if err != nil || len(problems) != 0 || len(list) != 2 || list[0].Server != "http://example.com/mcp" {
		t.Fatalf("list: %v, %v, %v", list, problems, err)
	}
	if ok, err := c.Delete("http://example.com/mcp", "default"); !ok || err != nil {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if ok, err := c.Delete("http://example.com/mcp", "default"); ok || err != nil {
		t.Fatalf("second delete: %v, %v", ok, err)
	}
}

func TestCacheRefusesFilesOthersCanRead(t *testing.T) {
	c := &login.Cache{Dir: t.TempDir()}
	if err := c.Save(entry("https://example.com/mcp", "default")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(c.Dir, "*.json"))
	if err := os.Chmod(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := c.Load("https://example.com/mcp", "default")
	if err == nil || !strings.Contains(err.Error(), "can be read by others (mode 0644): refusing to use it") {
		t.Fatalf("got %v", err)
	}
	_, problems, _ := c.List()
	if len(problems) != 1 {
		t.Fatalf("list problems %v, want the readable file named", problems)
	}
}

func TestCacheRefusesAnotherServersFile(t *testing.T) {
	c := &login.Cache{Dir: t.TempDir()}
	if err := c.Save(entry("https://a.example/mcp", "default")); err != nil {
		t.Fatal(err)
	}
	// A file copied to the name of another server's login is not used.
	files, _ := filepath.Glob(filepath.Join(c.Dir, "*.json"))
	data, _ := os.ReadFile(files[0])
	c2 := &login.Cache{Dir: t.TempDir()}
	if err := c2.Save(entry("https://b.example/mcp", "default")); err != nil {
		t.Fatal(err)
	}
	other, _ := filepath.Glob(filepath.Join(c2.Dir, "*.json"))
	if err := os.WriteFile(other[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Load("https://b.example/mcp", "default"); err == nil || !strings.Contains(err.Error(), "holds the login of https://a.example/mcp") {
		t.Fatalf("got %v", err)
	}
}

// dpopKey is an EC P-256 key, PKCS #8, base64url.
const dpopKey = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgt0rqpguDtsmEoQOySh-cKXzNillUGipv1A4FRcdcOLuhRANCAATIgBEPa0b0CYGgro8lVvUrGbtLAtW6uRnsOP7H5n9xbeGqvMJGdg7AYjAtcqGFgDqd-Y6407NkkBQTO3XVTi9g"

func TestDecodeEntryIsStrict(t *testing.T) {
	good, _ := json.Marshal(entry("https://example.com/mcp", "default"))
	if _, err := login.DecodeEntry(good); err != nil {
		t.Fatalf("a good entry: %v", err)
	}
	dpop := `{"server":"https://e.com/mcp","identity":"d","grant":"client_credentials","access_token":"x","token_type":"DPoP","dpop_key":"` + dpopKey + `"}`
	if _, err := login.DecodeEntry([]byte(dpop)); err != nil {
		t.Fatalf("a good DPoP entry: %v", err)
	}
	for _, bad := range []string{
		`{}`,
		`not json`,
		strings.Replace(string(good), `"grant"`, `"grnat"`, 1),
		strings.Replace(string(good), `"access_token":"at-default"`, `"access_token":""`, 1),
		strings.Replace(string(good), `"identity":"default"`, `"identity":"../x"`, 1),
		strings.Replace(string(good), `"server":"https://example.com/mcp"`, `"server":"file:///etc"`, 1),
		string(good) + `{}`,
		// A key twice, or in two letter cases: encoding/json reads the last
		// (or any case), others the first; a login is read one way.
		strings.Replace(string(good), `"access_token":"at-default"`, `"access_token":"at-default","access_token":"at-other"`, 1),
		strings.Replace(string(good), `"access_token":"at-default"`, `"access_token":"at-default","Access_Token":"at-other"`, 1),
		`{"server":"https://e.com/mcp","identity":"d","grant":"password","access_token":"x"}`,
		// A DPoP token needs its key, a key a DPoP token, and the key must
		// be an EC P-256 PKCS #8 one.
		`{"server":"https://e.com/mcp","identity":"d","grant":"client_credentials","access_token":"x","token_type":"DPoP"}`,
		`{"server":"https://e.com/mcp","identity":"d","grant":"client_credentials","access_token":"x","token_type":"Bearer","dpop_key":"` + dpopKey + `"}`,
		`{"server":"https://e.com/mcp","identity":"d","grant":"client_credentials","access_token":"x","token_type":"DPoP","dpop_key":"bm90IGEga2V5"}`,
	} {
		if _, err := login.DecodeEntry([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// FuzzDecodeEntry: a cache file is the user's, but a decoder of a file is
// fuzzed all the same: no panic, and what it accepts is a usable login.
func FuzzDecodeEntry(f *testing.F) {
	good, _ := json.Marshal(entry("https://example.com/mcp", "default"))
	f.Add(good)
	f.Add([]byte(`{"server":"http://127.0.0.1:1/mcp","identity":"a","grant":"client_credentials","access_token":"t"}`))
	f.Add([]byte(`{"expiry":"not a time"}`))
	f.Add([]byte(`{"server":"https://e.com/mcp","identity":"d","grant":"client_credentials","access_token":"x","token_type":"DPoP","dpop_key":"` + dpopKey + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := login.DecodeEntry(data)
		if err != nil {
			return
		}
		if e.AccessToken == "" || login.ValidIdentity(e.Identity) != nil {
			t.Fatalf("accepted an unusable login: %+v", e)
		}
		if _, err := login.Key(e.Server); err != nil {
			t.Fatalf("accepted server %q: %v", e.Server, err)
		}
	})
}

// The tokens of a cached login are told to OnToken when a handler takes
// it up, so that the output can hide them.
func TestOnTokenHearsTheCachedLogin(t *testing.T) {
	c := &login.Cache{Dir: t.TempDir()}
	e := entry("https://example.com/mcp", "default")
	e.AccessToken, e.RefreshToken = "at-cached-0123456789", "rt-cached-0123456789"
	if err := c.Save(e); err != nil {
		t.Fatal(err)
	}
	var heard []string
	l := &login.Login{Cache: c, OnToken: func(tokens ...string) { heard = append(heard, tokens...) }}
	if _, err := l.Handler("https://example.com/mcp"); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 2 || heard[0] != "at-cached-0123456789" || heard[1] != "rt-cached-0123456789" {
		t.Fatalf("OnToken heard %q", heard)
	}
}
