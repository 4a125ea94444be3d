package profile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/profile"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestExpand(t *testing.T) {
	vars := env(map[string]string{"TOKEN": "t0k", "EMPTY": "", "A1": "x"})
	for _, tc := range []struct{ in, want, err string }{
		{"Bearer ${TOKEN}", "Bearer t0k", ""},
		{"${EMPTY}-${A1}", "-x", ""},
		{"cost $5 and $$${TOKEN}", "cost $5 and $t0k", ""},
		{"$TOKEN stays", "$TOKEN stays", ""},
		{"$${TOKEN}", "${TOKEN}", ""},
		{"trailing $", "trailing $", ""},
		{"${MISSING}", "", "MISSING is not set"},
		{"${TOKEN", "", "without a closing"},
		{"${1X}", "", "not a variable name"},
		{"${}", "", "not a variable name"},
		{"${TO KEN}", "", "not a variable name"},
	} {
		got, err := profile.Expand(tc.in, vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Expand(%q) error = %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// A value from the environment is not expanded again: a variable whose
// value looks like a reference cannot pull in another variable.
func TestExpandIsNotRecursive(t *testing.T) {
	got, err := profile.Expand("${A}", env(map[string]string{"A": "${SECRET}", "SECRET": "s3cret"}))
	if err != nil || got != "${SECRET}" {
		t.Fatalf("Expand = %q, %v; want the value as it is", got, err)
	}
}

func TestExpandedProfile(t *testing.T) {
	p := &profile.Profile{URL: "http://${HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, Timeout: "5s"}
	got, err := p.Expanded(env(map[string]string{"HOST": "127.0.0.1:1", "TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != "http://127.0.0.1:1/mcp" || got.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("Expanded = %+v", got)
	}
	if p.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("Expanded changed the original: %+v", p)
	}
	if _, err := p.Expanded(env(nil)); err == nil || !strings.Contains(err.Error(), "url") {
		t.Errorf("an unset variable should be an error naming the field, got %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		p   profile.Profile
		err string
	}{
		{profile.Profile{Command: "./srv"}, ""},
		{profile.Profile{}, "names no server"},
		{profile.Profile{Command: "x", URL: "http://y"}, "both"},
		{profile.Profile{URL: "http://y", Timeout: "soon"}, "duration"},
	} {
		err := tc.p.Validate()
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.p, err, tc.err)
		}
	}
	for _, bad := range []string{"", "-x", "a b", "../x", strings.Repeat("a", 65)} {
		if profile.ValidName(bad) == nil {
			t.Errorf("ValidName(%q) accepted it", bad)
		}
	}
}

func TestPlacesOrderAndSave(t *testing.T) {
	wd, cfg := t.TempDir(), t.TempDir()
	places := profile.DefaultPlaces(wd, cfg)
	// A missing profile is a *NotFoundError naming where it was looked
	// for; how to add one is the caller's to say (a command line).
	_, _, err := places.Lookup("x")
	nf, ok := errors.AsType[*profile.NotFoundError](err)
	if !ok || nf.Name != "x" || err.Error() != fmt.Sprintf("no profile \"x\" in %s or %s", places.Dir, places.User) {
		t.Fatalf("a missing profile: got %v, want a *NotFoundError naming both places", err)
	}
	user := &profile.File{Profiles: map[string]*profile.Profile{"x": {Command: "user"}, "only-user": {Command: "u2"}}}
	if err := user.Save(places.User); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(places.User); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v %v, want mode 0600", fi.Mode(), err)
	}
	local := &profile.File{Profiles: map[string]*profile.Profile{"x": {Command: "local"}}}
	if err := local.Save(filepath.Join(wd, profile.FileName)); err != nil {
		t.Fatal(err)
	}
	p, path, err := places.Lookup("x")
	if err != nil || p.Command != "local" || path != places.Dir {
		t.Errorf("Lookup(x) = %+v from %s, %v; want the working directory's", p, path, err)
	}
	p, path, err = places.Lookup("only-user")
	if err != nil || p.Command != "u2" || path != places.User {
		t.Errorf("Lookup(only-user) = %+v from %s, %v; want the user's", p, path, err)
	}
}

func TestParseRejectsJunk(t *testing.T) {
	for _, s := range []string{"profiles: [1, 2]", "profiles:\n  a: {timeout: [x]}", "\t:"} {
		if _, err := profile.Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%q) accepted it", s)
		}
	}
	if _, err := profile.Parse([]byte(strings.Repeat("#", 2<<20))); err == nil {
		t.Error("Parse accepted a file larger than the limit")
	}
	f, err := profile.Parse([]byte("profiles:\n  empty:\n"))
	if err != nil || f.Profiles["empty"] == nil {
		t.Errorf("an empty profile should parse as an empty profile: %v %v", f, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("profiles:\n  a:\n    url: http://x\n    headers:\n      Authorization: Bearer ${T}\n")
	f.Add("profiles: {}")
	f.Add("&a [*a]")
	f.Fuzz(func(t *testing.T, s string) {
		file, err := profile.Parse([]byte(s))
		if err != nil {
			return
		}
		for _, p := range file.Profiles {
			_ = p.Validate()
			_, _ = p.Expanded(func(string) (string, bool) { return "v", true })
		}
	})
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${A}", "$$", "${", "a$", "${A}${B}", "$${A}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := profile.Expand(s, func(string) (string, bool) { return "", true })
		if err == nil && strings.Contains(s, "${") == false && strings.Contains(s, "$$") == false && got != s {
			t.Fatalf("Expand(%q) = %q changed text without references", s, got)
		}
	})
}

// A key the format does not know is named, with its line, not left out
// without a word.
func TestParseNamesAnUnknownKey(t *testing.T) {
	_, err := profile.Parse([]byte("profiles:\n  staging:\n    url: http://127.0.0.1:8080/mcp\n    timout: 5s\n"))
	if err == nil || !strings.Contains(err.Error(), "timout") || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("err = %v, want the key timout and its line named", err)
	}
	if f, err := profile.Parse(nil); err != nil || f.Profiles == nil {
		t.Errorf("an empty file: %v, %v", f, err)
	}
}

// An unknown key or a part of the wrong shape is said in the file's words:
// its line, the key, the nearest known key and all of them; never the Go
// type the file is decoded into.
func TestParseErrorsSpeakOfTheFile(t *testing.T) {
	cases := []struct{ file, want string }{
		{"profiles:\n  dev:\n    command: x\n    timout: 5s\n",
			`line 4: unknown key "timout" in profile "dev"; did you mean "timeout"? (a profile's keys: auth, command, connect_timeout, disabled, headers, protocol, timeout, transport, url)`},
		{"profile:\n  dev:\n    command: x\n",
			`line 1: unknown key "profile" at the top of the file; did you mean "profiles"? (the file's keys: profiles)`},
		{"profiles:\n  dev:\n    url: http://x\n    auth:\n      identity: me\n      colour: red\n",
			`line 6: unknown key "colour" in the auth of profile "dev" (auth's keys: assertion_file, client_credentials, client_id, client_key, client_metadata_url, client_secret, id_token_file, identity, idp_client_id, idp_issuer, no_browser, redirect_url, scopes)`},
		{"profiles:\n  a: &base\n    command: x\n  b:\n    <<: *base\n    urll: y\n",
			`line 6: unknown key "urll" in profile "b"; did you mean "url"? (a profile's keys: auth, command, connect_timeout, disabled, headers, protocol, timeout, transport, url)`},
		{"profiles: [1, 2]\n", `line 1: profiles must be a mapping of profile names to profiles`},
		{"profiles:\n  a: 3\n", `line 2: profile "a" must be a mapping of keys such as command or url`},
		{"profiles:\n  a:\n    headers: [x]\n", `line 3: profile "a": headers must be a mapping of header names to values`},
		{"- profiles\n", `line 1: the file must be a mapping with the key profiles`},
	}
	for _, c := range cases {
		_, err := profile.Parse([]byte(c.file))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v\nwant %s", c.file, err, c.want)
		}
	}
	// A profile that merges another's keys is read with them.
	f, err := profile.Parse([]byte("profiles:\n  a: &base\n    command: x\n  b:\n    <<: *base\n    timeout: 5s\n"))
	if err != nil || f.Profiles["b"].Command != "x" || f.Profiles["b"].Timeout != "5s" {
		t.Errorf("a merged profile: %+v, %v", f, err)
	}
}

// Load names the file with the line.
func TestLoadNamesTheFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), profile.FileName)
	if err := os.WriteFile(path, []byte("profiles:\n  dev:\n    comand: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := profile.Load(path)
	want := path + `:3: unknown key "comand" in profile "dev"; did you mean "command"?`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load = %v, want it to begin %s", err, want)
	}
}
