package audit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSecretIn(t *testing.T) {
	secret := []string{"password", "Password", "newPassword", "api_key", "apiKey", "Your shop API key", "API-KEY",
		"accessToken", "refresh_token", "client_secret", "cardNumber", "Credit card", "CVV", "cvc", "IBAN",
		"private key", "PIN code", "otp", "ssh key", "the secret", "bearer"}
	for _, s := range secret {
		if secretIn(s) == "" {
			t.Errorf("secretIn(%q) found nothing", s)
		}
	}
	plain := []string{"username", "email", "name", "max_tokens", "token count", "tokenizer", "passage",
		"keyboard", "Pin the issue to the top", "secretary", "environment", "confirm", "sort order", "Target environment"}
	for _, s := range plain {
		if got := secretIn(s); got != "" {
			t.Errorf("secretIn(%q) = %q, want nothing", s, got)
		}
	}
}

func TestSecretFields(t *testing.T) {
	p := &mcp.ElicitParams{RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
		"login": map[string]any{"type": "string", "title": "Login"},
		"value": map[string]any{"type": "string", "description": "Your GitHub personal access token"},
	}}}
	got := secretFields(p)
	if len(got) != 1 || !strings.Contains(got[0], `field "value": description`) {
		t.Fatalf("secretFields = %q", got)
	}
}

func TestURLProblems(t *testing.T) {
	ok := []string{
		"https://mcp.example.com/connect/github",
		"http://127.0.0.1:8080/connect/github?t=run.eyJwIjoiZ2l0aHViIn0.c2ln",
		"http://localhost/connect",
		"http://[::1]:9000/x",
	}
	for _, u := range ok {
		if p := urlProblems(u, []string{"alice-mcp-token"}, urlcheck.LocalServer()); len(p) != 0 {
			t.Errorf("urlProblems(%q) = %q, want none", u, p)
		}
	}
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln"
	bad := map[string]string{
		"http://mcp.example.com/connect":                      "only loopback hosts may skip https",
		"ftp://mcp.example.com/x":                             `scheme "ftp"`,
		"https://user:pw@mcp.example.com/x":                   "user info",
		"https://mcp.example.com/x?access_token=abc":          `"access_token" carries a credential`,
		"https://mcp.example.com/x#token=abc":                 `fragment parameter "token"`,
		"https://mcp.example.com/x?state=" + jwt:              "carries a JWT",
		"https://mcp.example.com/u/alice@example.com/connect": "e-mail address",
		"https://mcp.example.com/x?s=alice-mcp-token":         "a credential the client sent",
		"not a url": "not a valid absolute URL",
	}
	for u, want := range bad {
		p := urlProblems(u, []string{"alice-mcp-token"}, urlcheck.LocalServer())
		if !strings.Contains(strings.Join(p, "; "), want) {
			t.Errorf("urlProblems(%q) = %q, want %q", u, p, want)
		}
	}
}

// A link to this machine, or to a private network, is a problem when the
// server that sent it is elsewhere (it points the person's browser at
// services the server cannot reach), as --open's check says; from a server
// on this machine it is its own page.
func TestURLProblemsOfAServerElsewhere(t *testing.T) {
	remote := urlcheck.ServerAt("https://mcp.example.com/mcp")
	for u, want := range map[string]string{
		"http://127.0.0.1:631/admin/?op=purge-jobs": "the link points at this machine (127.0.0.1), but the server is at mcp.example.com",
		"http://localhost:8888/tree":                "the link points at this machine (localhost)",
		"https://192.168.1.1/admin":                 "private network",
	} {
		p := strings.Join(urlProblems(u, nil, remote), "; ")
		if !strings.Contains(p, want) {
			t.Errorf("urlProblems(%q) from mcp.example.com = %q, want %q", u, p, want)
		}
		if p := urlProblems(u, nil, urlcheck.LocalServer()); strings.Contains(strings.Join(p, "; "), "this machine") || strings.Contains(strings.Join(p, "; "), "private network") {
			t.Errorf("urlProblems(%q) from a server on this machine = %q, want no place problem", u, p)
		}
	}
}

// A URL with several bad parameters lists them in the order the URL gives
// them, the same on every run (they were listed in map order).
func TestURLProblemsInTheURLsOrder(t *testing.T) {
	const u = "https://mcp.example.com/x?token=a&api_key=b&access_token=c&secret=d&password=e"
	want := []string{
		`query parameter "token" carries a credential`,
		`query parameter "api_key" carries a credential`,
		`query parameter "access_token" carries a credential`,
		`query parameter "secret" carries a credential`,
		`query parameter "password" carries a credential`,
	}
	for range 50 {
		got := urlProblems(u, nil, urlcheck.LocalServer())
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("urlProblems(%q) =\n%s\nwant\n%s", u, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestHeaderSecrets(t *testing.T) {
	got := headerSecrets([]string{"Authorization: Bearer abc123456", "Accept: text/plain", "X-Api-Key: k-987654321"})
	want := "Bearer abc123456|abc123456|k-987654321"
	if strings.Join(got, "|") != want {
		t.Fatalf("headerSecrets = %q, want %q", got, want)
	}
}

// Answers made up for a form are valid answers to it.
func TestFormAnswerValidates(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"environment":{"type":"string","oneOf":[{"const":"staging","title":"S"},{"const":"production","title":"P"}],"default":"staging"},"confirm":{"type":"boolean"}},"required":["environment","confirm"]}`,
		`{"type":"object","properties":{"email":{"type":"string","format":"email"},"when":{"type":"string","format":"date-time"},"day":{"type":"string","format":"date"},"site":{"type":"string","format":"uri"}},"required":["email","when","day","site"]}`,
		`{"type":"object","properties":{"code":{"type":"string","minLength":12,"maxLength":20},"short":{"type":"string","maxLength":3}},"required":["code","short"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9},"x":{"type":"number","maximum":0.5}},"required":["n","x"]}`,
		`{"type":"object","properties":{"colors":{"type":"array","minItems":2,"items":{"enum":["r","g","b"]}}},"required":["colors"]}`,
	}
	for _, s := range schemas {
		form, err := formschema.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		p := &mcp.ElicitParams{RequestedSchema: []byte(s)}
		ans := formAnswer(p)
		if err := form.Validate(form.ApplyDefaults(ans)); err != nil {
			t.Errorf("%s: made-up answer %v: %v", s, ans, err)
		}
	}
}

func TestSynthAndVaryArgs(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"service", "count", "dry", "level"},
		"properties": map[string]any{
			"service": map[string]any{"type": "string"},
			"count":   map[string]any{"type": "integer", "minimum": 3.0},
			"dry":     map[string]any{"type": "boolean"},
			"level":   map[string]any{"type": "string", "enum": []any{"low", "high"}},
			"extra":   map[string]any{"type": "string"},
		}}
	args := schemaargs.Args(schema)
	if args["service"] != "example" || args["count"] != 3.0 || args["dry"] != true || args["level"] != "low" || len(args) != 4 {
		t.Fatalf("schemaargs.Args = %v", args)
	}
	other, ok := varyArgs(args, schema)
	if !ok || other["service"] != "example-other" || other["count"] != 4.0 || other["dry"] != false || other["level"] != "high" {
		t.Fatalf("varyArgs = %v, %v", other, ok)
	}
	if _, ok := varyArgs(map[string]any{}, nil); ok {
		t.Fatal("varyArgs of nothing reports a change")
	}
}

func FuzzURLProblems(f *testing.F) {
	for _, s := range []string{"https://a.example/x?token=1", "http://127.0.0.1/", "http://[::1", "%zz", "https://u:p@h/#a=b&c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_ = urlProblems(raw, []string{"secret-value"}, urlcheck.ServerAt("https://mcp.example.com/mcp"))
	})
}

func FuzzSecretIn(f *testing.F) {
	for _, s := range []string{"apiKey", "max_tokens", "PIN code", "ÄÖÜpassword", "a-b_c d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = secretIn(s)
	})
}

func FuzzFormAnswer(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string","minLength":3}}}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","minItems":3}}}}}`)
	f.Add(`{"properties":{"x":{"type":["string","null"]}}}`)
	f.Fuzz(func(t *testing.T, schema string) {
		_ = formAnswer(&mcp.ElicitParams{RequestedSchema: []byte(schema)})
	})
}

func FuzzShorten(f *testing.F) {
	f.Add([]byte(`{"a":"` + strings.Repeat("x", 500) + `"}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`[1,2,{"b":null}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if n := utf8.RuneCountInString(shorten(raw)); n > maxEvidence+1 {
			t.Fatalf("shorten gave %d characters", n)
		}
	})
}

func TestExpandTemplate(t *testing.T) {
	args := map[string]any{"id": "a b", "q": "x", "n": 3.0}
	for tmpl, want := range map[string]string{
		"customer://{id}":          "customer://a%20b",
		"test://items/{id}{?q,n}":  "test://items/a%20b?q=x&n=3",
		"file:///{+id}":            "file:///a b",
		"x://h{/id}{;n}{#q}":       "x://h/a%20b;n=3#x",
		"x://{missing}/{id:3}{.q}": "x:///a%20b.x",
	} {
		if got := expand(tmpl, args); got != want {
			t.Errorf("expand(%q) = %q, want %q", tmpl, got, want)
		}
	}
	if got := strings.Join(templateVars("x://{a}/{+b,c*}{?d:4}"), ","); got != "a,b,c,d" {
		t.Errorf("templateVars = %q", got)
	}
}

func TestDestructive(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		an   *mcp.ToolAnnotations
		want bool
	}{
		{nil, true},
		{&mcp.ToolAnnotations{}, true},
		{&mcp.ToolAnnotations{ReadOnlyHint: true}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, false}, // meaningful only when not read-only
		{&mcp.ToolAnnotations{DestructiveHint: &no}, false},
		{&mcp.ToolAnnotations{DestructiveHint: &yes}, true},
	}
	for _, c := range cases {
		if got := destructive(&mcp.Tool{Name: "t", Annotations: c.an}) != ""; got != c.want {
			t.Errorf("destructive(%+v) = %v, want %v", c.an, got, c.want)
		}
	}
}

// The second identity's headers replace the first's of the same names and
// keep the others.
func TestOtherTarget(t *testing.T) {
	a := &auditor{opts: Options{
		Target:       &target.Target{URL: "http://127.0.0.1/mcp", Headers: []string{"authorization: Bearer alice", "X-Tenant: acme"}},
		OtherHeaders: []string{"Authorization: Bearer bob"},
	}}
	got := strings.Join(a.otherTarget().Headers, "|")
	if got != "X-Tenant: acme|Authorization: Bearer bob" {
		t.Fatalf("other headers = %q", got)
	}
	if strings.Join(a.opts.Target.Headers, "|") != "authorization: Bearer alice|X-Tenant: acme" {
		t.Fatal("the first identity's headers were changed")
	}
	w := withHeader(a.opts.Target, "Mcp-Protocol-Version", "2025-11-25")
	if len(w.Headers) != 3 || len(withHeader(w, "mcp-protocol-version", "x").Headers) != 3 {
		t.Fatalf("withHeader: %q", w.Headers)
	}
}
