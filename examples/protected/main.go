// Command protected serves an MCP server that requires OAuth, and the
// authorization server that issues its tokens, on one loopback address:
// the place to try mcp-tester's login (see docs/auth.md), and the server
// of its transcripts. The authorization server is the one of
// internal/testsupport/fixtures/authserver: a sign-in page for alice and bob,
// dynamic client registration, PKCE, refresh tokens, client credentials,
// DPoP (-dpop, -dpop-nonce), and flags to misbehave. Its package doc says
// what it guards and what a real server adds.
//
// alice and bob sign in with the password in $PROTECTED_PASSWORD, or,
// when that is not set, a random one printed on stderr at start.
// -test-only-consent-without-sign-in replaces the password with a page on
// which anyone signs in as anyone with a click: for tests only, never on
// a server others can reach.
//
// It writes its MCP URL to -url-file once it listens, and every access
// token it hands out to -tokens-file, one a line, so that a test can look
// for them where they must not be.
package main

import (
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "protected:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	urlFile := flag.String("url-file", "", "write the MCP URL to this file once listening")
	tokensFile := flag.String("tokens-file", "", "append every access token handed out to this file")
	ttl := flag.Duration("ttl", time.Hour, "lifetime of access tokens")
	withhold := flag.String("withhold", "", "a scope never granted")
	noPKCE := flag.Bool("no-pkce", false, "leave PKCE out of the authorization server metadata")
	wrongIssuer := flag.Bool("wrong-issuer", false, "claim another issuer in the metadata")
	wrongState := flag.Bool("wrong-state", false, "send the browser back with another state")
	neverRedirect := flag.Bool("never-redirect", false, "never send the browser back")
	noRegistration := flag.Bool("no-registration", false, "no dynamic client registration")
	client := flag.String("client", "", "a pre-registered client, ID or ID:SECRET")
	leak := flag.Bool("leak-token", false, "add a tool, leaky, whose URL question carries the caller's access token")
	dpop := flag.Bool("dpop", false, "take DPoP-bound tokens only (RFC 9449), proofs checked strictly")
	dpopNonce := flag.Bool("dpop-nonce", false, "with -dpop, ask for a DPoP nonce in every proof")
	dpopChurn := flag.Bool("dpop-nonce-churn", false, "with -dpop, answer every proof with a new nonce (a client must give up)")
	clickConsent := flag.Bool("test-only-consent-without-sign-in", false, "TESTS ONLY: anyone signs in as anyone with a click, no password")
	flag.Parse()
	if err := listen.CheckFlag("-addr", *addr); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	var mu sync.Mutex
	opts := authserver.Options{Issuer: base, TokenTTL: *ttl, Withhold: *withhold, NoPKCE: *noPKCE, WrongIssuer: *wrongIssuer,
		WrongState: *wrongState, NeverRedirect: *neverRedirect, NoRegistration: *noRegistration, DPoP: *dpop || *dpopNonce || *dpopChurn, DPoPNonce: *dpopNonce, DPoPNonceChurn: *dpopChurn,
		ConsentWithoutSignIn: *clickConsent}
	signIn := "sign in as alice or bob"
	if *clickConsent {
		signIn += " with a click (test mode: no password, anyone signs in as anyone)"
	} else {
		password, given := os.LookupEnv("PROTECTED_PASSWORD")
		if !given || password == "" {
			password = rand.Text()
			signIn += " with the password " + password
		} else {
			signIn += " with the password in $PROTECTED_PASSWORD"
		}
		opts.Passwords = map[string]string{"alice": password, "bob": password}
	}
	if *client != "" {
		id, secret, _ := strings.Cut(*client, ":")
		opts.Clients = map[string]string{id: secret}
	}
	if *tokensFile != "" {
		opts.OnIssue = func(tok string) {
			mu.Lock()
			defer mu.Unlock()
			f, err := os.OpenFile(*tokensFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				fmt.Fprintln(os.Stderr, "protected:", err)
				return
			}
			fmt.Fprintln(f, tok)
			f.Close()
		}
	}
	as, err := authserver.New(opts)
	if err != nil {
		return err
	}
	mcpHandler, err := authserver.Protected(as, base, *leak)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(authserver.MCPPath, mcpHandler)
	mux.Handle(authserver.ResourceMetadataPath, mcpHandler)
	mux.Handle("/", as)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(base+authserver.MCPPath+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "protected: MCP server at %s%s (tools whoami, admin, deploy); %s\n", base, authserver.MCPPath, signIn)
	srv := httpserve.Server(mux, nil) // bodies, headers and idle connections bounded
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
