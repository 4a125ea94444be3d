package login

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/urlcheck"
)

func TestReceiverTakesOneAnswerAndEchoesNothing(t *testing.T) {
	r, redirect, err := listen("RedirectURL", "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, callbackPath) {
		t.Fatalf("redirect %q", redirect)
	}
	get := func(method, url string) (int, string) {
		req, _ := http.NewRequest(method, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	base := strings.TrimSuffix(redirect, callbackPath)
	// Before a login waits, and with another state, nothing is taken.
	if code, page := get("GET", redirect+"?code=a&state=s"); code != http.StatusBadRequest || !strings.Contains(page, "Not this login") {
		t.Errorf("with no login waiting: %d %q", code, page)
	}
	r.expect("s")
	for _, q := range []string{"?code=a&state=zzforgedzz", "?code=a", "?code=a&state=s&state=s", "?error=access_denied&state=x", "?error=access_denied"} {
		if code, page := get("GET", redirect+q); code != http.StatusBadRequest || !strings.Contains(page, "Not this login") || strings.Contains(page, "zzforgedzz") {
			t.Errorf("%s: %d %q", q, code, page)
		}
	}
	if len(r.results) != 0 || len(r.ignored) != 1 {
		t.Fatalf("ignored requests delivered %d results, %d notes", len(r.results), len(r.ignored))
	}
	if code, _ := get("GET", base+"/favicon.ico"); code != http.StatusNotFound {
		t.Errorf("another path: %d", code)
	}
	if code, _ := get("POST", redirect+"?code=a&state=b"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", code)
	}
	code, page := get("GET", redirect+"?code=%3Cscript%3Ealert(1)%3C/script%3E&state=s")
	if code != http.StatusOK || !strings.Contains(page, "Logged in") || strings.Contains(page, "script") || strings.Contains(page, "alert") {
		t.Fatalf("%d %q", code, page)
	}
	if res := <-r.results; res.err != nil || res.res.Code != "<script>alert(1)</script>" || res.res.State != "s" {
		t.Fatalf("result %+v", res)
	}
	// One answer per login: a second one is turned away (until the next
	// login drains it).
	get("GET", redirect+"?code=b&state=s")
	if code, page := get("GET", redirect+"?code=c&state=s"); code != http.StatusConflict || !strings.Contains(page, "Already done") {
		t.Fatalf("a third answer: %d %q", code, page)
	}
	if code, page := get("GET", redirect+"?error=access_denied&state=s"); code != http.StatusConflict && !strings.Contains(page, "Login failed") {
		t.Fatalf("an error answer: %d %q", code, page)
	}
}

func TestReceiverOnAFixedAddress(t *testing.T) {
	for _, bad := range []string{"https://127.0.0.1:1/cb", "http://example.com:1/cb", "http://127.0.0.1/cb", "http://127.0.0.1:1/cb?x=1"} {
		if _, _, err := listen("RedirectURL", bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

func TestSignInWarnings(t *testing.T) {
	var b strings.Builder
	local := urlcheck.ServerAt("http://127.0.0.1:8090/mcp")
	if signInWarnings(&b, "http://127.0.0.1:8090/authorize?client_id=c&code_challenge=x&state=s", local) {
		t.Errorf("a loopback sign-in page was found suspicious:\n%s", &b)
	}
	if !strings.Contains(b.String(), "you will sign in at 127.0.0.1\n") {
		t.Errorf("the host was not named:\n%s", &b)
	}
	for _, address := range []string{
		"https://xn--pple-43d.com/authorize?state=s", // аpple, with a Cyrillic а
		"https://github.com@evil.example/authorize",
		"http://mcp.example.com/authorize",
		"https://3232235777/authorize",
	} {
		b.Reset()
		if !signInWarnings(&b, address, local) || !strings.Contains(b.String(), "warning: the sign-in address:") {
			t.Errorf("%s: no warning:\n%s", address, &b)
		}
	}
	// A server elsewhere that sends the browser to this machine to sign in.
	b.Reset()
	if !signInWarnings(&b, "http://localhost:631/authorize?state=s", urlcheck.ServerAt("https://mcp.example.com/mcp")) ||
		!strings.Contains(b.String(), "the link points at this machine (localhost), but the server is at mcp.example.com, not on this machine") {
		t.Errorf("a sign-in page on this machine for a server elsewhere: no warning:\n%s", &b)
	}
}
