// Command github-connect is an MCP server (Streamable HTTP) with one tool, create_issue,
// that acts on the caller's GitHub account. The first call asks the user, through a
// URL-mode question, to connect GitHub in the browser; the connect page checks that the
// browser is signed in as the same user as the MCP client before it starts GitHub's OAuth
// flow. The GitHub token stays on the server.
//
// For a demo on one machine, -fake-github ADDR also runs a local provider that plays
// GitHub (sign-in as octo-alice, octo-bob or octo-carol):
//
//	github-connect -http 127.0.0.1:8080 -fake-github 127.0.0.1:8081 \
//	    -user alice:alice-mcp-token:alice-pw -user bob:bob-mcp-token:bob-pw
//
// MCP clients send "Authorization: Bearer alice-mcp-token"; in the browser, alice signs in
// at http://127.0.0.1:8080/signin with her password. The demo uses http on loopback; serve
// https in production.
package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/examples/github-connect/fakegithub"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/keys"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "github-connect:", err)
		os.Exit(1)
	}
}

type userFlags []demoUser

func (u *userFlags) String() string { return fmt.Sprint(len(*u), " users") }
func (u *userFlags) Set(s string) error {
	du, err := parseUser(s)
	if err != nil {
		return err
	}
	*u = append(*u, du)
	return nil
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("github-connect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		addr       = fs.String("http", "127.0.0.1:8080", "listen on `ADDR` for MCP (/mcp) and the browser pages")
		publicURL  = fs.String("public-url", "", "the `URL` browsers use to reach this server (default http://ADDR)")
		usersFile  = fs.String("users-file", "", "read users from `FILE`, one NAME:TOKEN:PASSWORD per line")
		dbPath     = fs.String("db", "github-connect-tokens.db", "keep GitHub tokens, encrypted, in the bbolt database `FILE` (with -key-file)")
		keyFile    = fs.String("key-file", "", "read the server's secret (64 hex digits) from `FILE`: it signs links and encrypts stored tokens; default: a random secret per run and tokens in memory")
		fakeAddr   = fs.String("fake-github", "", "also run the local fake GitHub on `ADDR` and use it")
		authURL    = fs.String("github-auth-url", "", "GitHub's authorization endpoint `URL`")
		tokenURL   = fs.String("github-token-url", "", "GitHub's token endpoint `URL`")
		apiURL     = fs.String("github-api-url", "", "GitHub's API base `URL`")
		clientID   = fs.String("github-client-id", "github-connect-demo", "the OAuth client `ID` registered at GitHub")
		addrFile   = fs.String("addr-file", "", "write the address the server (-http) listens on to `FILE`, once listening")
		delay      = fs.Duration("signin-delay", defaultThrottle.FirstDelay, "after three wrong passwords (or bearer tokens) in a row, an address waits this long before it may try again, twice as long after each further one")
		refill     = fs.Duration("signin-refill", defaultThrottle.AddressRefill, "an address's budget of sign-in attempts across accounts, and an account's across addresses, get one attempt back this often")
		users      userFlags
		secretEnv  = "GITHUB_CLIENT_SECRET"
		logger     = slog.New(slog.NewTextHandler(stderr, nil))
		listenAddr string
	)
	fs.Var(&users, "user", "a user as `NAME:TOKEN:PASSWORD` (repeatable): MCP bearer token and browser password")
	bounds := httpserve.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if err := bounds.Apply(ho); err != nil {
		return err
	}
	if *usersFile != "" {
		more, err := readUsersFile(*usersFile)
		if err != nil {
			return err
		}
		users = append(users, more...)
	}
	if err := listen.CheckFlag("-http", *addr); err != nil {
		return err
	}
	listenAddr = *addr
	if *publicURL == "" {
		*publicURL = "http://" + listenAddr
	}
	key, err := loadKey(*keyFile, logger)
	if err != nil {
		return err
	}
	secret := os.Getenv(secretEnv)

	var servers []*http.Server
	if *fakeAddr != "" {
		if secret == "" {
			secret = "fake-github-demo-secret"
		}
		fake, err := fakegithub.New(fakegithub.Options{
			ClientID: *clientID, ClientSecret: secret, AppName: "github-connect example",
			RedirectURL: strings.TrimSuffix(*publicURL, "/") + "/connect/github/callback",
		})
		if err != nil {
			return err
		}
		base := "http://" + *fakeAddr
		*authURL, *tokenURL, *apiURL = base+fakegithub.AuthorizePath, base+fakegithub.TokenPath, base
		fs := httpserve.Server(fake, ho)
		fs.Addr = *fakeAddr
		servers = append(servers, fs)
	}
	if *authURL == "" || *tokenURL == "" || *apiURL == "" {
		return errors.New("say where GitHub is: -github-auth-url, -github-token-url and -github-api-url, or -fake-github ADDR for the local fake")
	}

	var store tokenstore.Store
	if *keyFile == "" {
		logger.Warn("no -key-file: GitHub tokens are kept in memory only and are lost when the server stops")
		store = tokenstore.NewMemory()
	} else {
		bolt, err := tokenstore.OpenBolt(*dbPath, nil)
		if err != nil {
			return err
		}
		defer bolt.Close()
		// Sealed with a key derived from the key file: the database file alone
		// gives away no token (NewEncrypted derives a sealing key of its own).
		if store, err = tokenstore.NewEncrypted(bolt, key); err != nil {
			return err
		}
	}

	a, err := newApp(config{
		PublicURL: *publicURL,
		Users:     users,
		GitHub: githubConfig{AuthURL: *authURL, TokenURL: *tokenURL, APIURL: *apiURL,
			ClientID: *clientID, ClientSecret: secret},
		Store:        store,
		Keys:         []keys.Key{{ID: key.ID, Secret: derive(key.Secret, "github-connect links")}},
		Logger:       logger,
		SignInDelay:  *delay,
		SignInRefill: *refill,
	})
	if err != nil {
		return err
	}
	as := httpserve.Server(a.handler, ho)
	as.Addr = listenAddr
	servers = append(servers, as)

	return serveAll(ctx, servers, as, *addrFile, *publicURL, logger)
}

// readUsersFile reads the users of a -users-file.
func readUsersFile(path string) ([]demoUser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	defer f.Close()
	users, err := readUsers(f)
	if err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	return users, nil
}

// serveAll runs the servers until ctx ends or one fails, then shuts them
// down. The address mcp (the MCP server) listens on is written to
// addrFile, when one is given.
func serveAll(ctx context.Context, servers []*http.Server, mcp *http.Server, addrFile, publicURL string, logger *slog.Logger) error {
	errc := make(chan error, len(servers))
	for _, s := range servers {
		ln, err := net.Listen("tcp", s.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", s.Addr, err)
		}
		logger.Info("listening", "addr", ln.Addr().String())
		if s == mcp && addrFile != "" {
			if err := os.WriteFile(addrFile, []byte(ln.Addr().String()+"\n"), 0o600); err != nil {
				ln.Close()
				return fmt.Errorf("-addr-file: %w", err)
			}
		}
		go func() { errc <- s.Serve(ln) }()
	}
	logger.Info("ready", "mcp", publicURL+"/mcp", "signin", publicURL+"/signin")
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
	return nil
}

// derive makes a key for one purpose from the server's secret.
func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// loadKey reads a 32-byte hex key from path, or makes a random one: links then stop
// working when the server restarts, which is fine for a demo.
func loadKey(path string, logger *slog.Logger) (keys.Key, error) {
	if path == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return keys.Key{}, err
		}
		logger.Warn("no -key-file: using a random secret; links stop working when the server restarts")
		return keys.Key{ID: "run", Secret: b}, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return keys.Key{}, fmt.Errorf("key file: %w", err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(b) < 32 {
		return keys.Key{}, fmt.Errorf("key file %s: want at least 64 hex digits (openssl rand -hex 32)", path)
	}
	return keys.Key{ID: "k1", Secret: b}, nil
}
