package main

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// signInFrom posts the sign-in form from the loopback address ip and returns
// the status and Retry-After.
func signInFrom(t *testing.T, base, ip, name, password string) (int, string) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: time.Minute}
	c := &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       time.Minute,
	}
	form := url.Values{"name": {name}, "password": {password}, "return": {"/signin"}}.Encode()
	req, _ := http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("sign in as %s from %s: %v", name, ip, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// slowThrottle are the flags of a sign-in throttle whose waits and refills
// take an hour: "a fourth try at once" is refused, and a spent budget stays
// spent, however long a busy machine takes between two requests (with the
// defaults, a second and 30 s).
var slowThrottle = []string{"-signin-delay", "1h", "-signin-refill", "1h"}

// The attack on the sign-in page: thousands of wrong passwords from one
// client. Against the real binary: one address is held back after a few
// wrong passwords for an account and after a budget across accounts; many
// addresses together are held back on one account; and through all of it
// the real user, from the address she signed in from before, still signs in.
func TestSignInIsThrottled(t *testing.T) {
	bin := filepath.Join(testbin.Need(t, "./examples/github-connect"), "github-connect")
	in := scaleout.StartInstance(t, "github-connect", bin, nil, append(slowThrottle,
		"-fake-github", "127.0.0.1:0", "-user", "alice:alice-mcp-token:alice-pw", "-user", "bob:bob-mcp-token:bob-pw")...)
	base := in.Base()

	// Alice signs in from her usual address.
	if code, _ := signInFrom(t, base, "127.0.0.2", "alice", "alice-pw"); code != http.StatusSeeOther {
		t.Fatalf("alice's sign-in: %d", code)
	}
	// One address guessing bob's password: three tries, then a wait.
	for i := range 3 {
		if code, _ := signInFrom(t, base, "127.0.0.9", "bob", "guess"); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d, want 401", i+1, code)
		}
	}
	code, after := signInFrom(t, base, "127.0.0.9", "bob", "bob-pw")
	if secs, _ := strconv.Atoi(after); code != http.StatusTooManyRequests || secs < 3000 {
		t.Fatalf("a fourth try at once, even right: %d (Retry-After %q), want 429 for about an hour (-signin-delay)", code, after)
	}
	// The same address across accounts: its budget runs out.
	refused := 0
	for i := range 60 {
		if code, _ := signInFrom(t, base, "127.0.0.9", fmt.Sprint("user", i), "guess"); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused < 60-defaultThrottle.AddressBurst {
		t.Fatalf("one address tried 60 accounts: %d refused, want at least %d", refused, 60-defaultThrottle.AddressBurst)
	}
	// Many addresses on alice's account, a few guesses each: her account's
	// budget runs out, and new addresses are held back.
	for i := range defaultThrottle.AccountBurst {
		ip := fmt.Sprint("127.0.1.", i+1)
		if code, _ := signInFrom(t, base, ip, "alice", "guess"); code != http.StatusUnauthorized {
			t.Fatalf("guess from %s: %d", ip, code)
		}
	}
	if code, _ := signInFrom(t, base, "127.0.2.1", "alice", "guess"); code != http.StatusTooManyRequests {
		t.Fatalf("a new address once alice's budget is spent: %d, want 429", code)
	}
	// Alice from her usual address is not locked out: paced, one attempt
	// every KnownPace at most, but let in.
	time.Sleep(defaultThrottle.KnownPace)
	if code, after := signInFrom(t, base, "127.0.0.2", "alice", "alice-pw"); code != http.StatusSeeOther {
		t.Fatalf("alice's sign-in from her usual address while her account is under attack: %d (Retry-After %q), want 303", code, after)
	}
}

// Guessing bearer tokens at /mcp is throttled by address the same way: a
// few wrong tokens, then 429 without the token being checked, while another
// address with a right token is served.
func TestWrongBearerTokensAreThrottled(t *testing.T) {
	bin := filepath.Join(testbin.Need(t, "./examples/github-connect"), "github-connect")
	in := scaleout.StartInstance(t, "github-connect", bin, nil, append(slowThrottle,
		"-fake-github", "127.0.0.1:0", "-user", "alice:alice-mcp-token:alice-pw")...)
	post := func(ip, token string) int {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: time.Minute}
		c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}, Timeout: time.Minute}
		req, _ := http.NewRequest(http.MethodPost, in.Endpoint(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 3 {
		if code := post("127.0.0.9", fmt.Sprint("guess-token-", i)); code != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, code)
		}
	}
	if code := post("127.0.0.9", "alice-mcp-token"); code != http.StatusTooManyRequests {
		t.Fatalf("a fourth token at once, even right: %d, want 429", code)
	}
	// Past the token, the go-sdk answers what it makes of the request.
	if code := post("127.0.0.2", "alice-mcp-token"); code == http.StatusUnauthorized || code == http.StatusTooManyRequests {
		t.Fatalf("alice's token from her address: %d, want it taken", code)
	}
}
