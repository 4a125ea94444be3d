package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/login"
	"github.com/spf13/cobra"
)

// newAuthCmd groups the commands that keep the logins to servers that
// require OAuth.
func newAuthCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to HTTP servers that require OAuth, and keep the logins",
		Long: `A server that requires OAuth answers 401 with a WWW-Authenticate Bearer
challenge. Every command then logs in by itself: it finds the server's
protected resource metadata and its authorization server, registers as a
client (a client ID metadata document, a pre-registered --client-id, or
dynamic registration, in that order), opens the browser with PKCE and a
state, takes the browser's return on a loopback address and retries.
--client-credentials logs a machine in without a browser.

Logins are cached per server and identity (--identity, default "default")
under the user's configuration directory (mcp-tester/tokens), in files only
the user can read; they are refreshed before they expire and never printed,
traced or recorded. A 403 insufficient_scope asks once for the larger scope.

auth login logs in now; auth status lists the cached logins; auth logout
forgets one. SERVER is the server's URL or the name of a profile.`,
		Example: `  bin/protected -addr 127.0.0.1:8090 &
  mcp-tester auth login http://127.0.0.1:8090/mcp
  mcp-tester auth login http://127.0.0.1:8090/mcp --identity bob
  mcp-tester auth status
  mcp-tester auth logout http://127.0.0.1:8090/mcp --identity bob`,
	}
	cmd.AddCommand(newAuthLoginCmd(ios, nil), newAuthStatusCmd(ios, nil), newAuthLogoutCmd(ios, nil))
	return cmd
}

// resolveServer turns the SERVER of an auth command into conn's URL: a URL
// as it is, or a profile's, whose settings then fill the flags not given.
// An empty server is left alone.
func resolveServer(server string, conn *ConnOptions) error {
	if server == "" {
		return nil
	}
	if strings.HasPrefix(server, "http://") || strings.HasPrefix(server, "https://") {
		conn.URL = server
	} else {
		conn.Profile = server
		if err := conn.applyProfile(); err != nil {
			return err
		}
		if conn.URL == "" {
			return usageErr("profile %q names a command: only HTTP servers take a login", server)
		}
	}
	if _, err := login.Key(conn.URL); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// identityOrDefault checks an --identity and returns it, or the default
// identity when it is empty.
func identityOrDefault(id string) (string, error) {
	if id == "" {
		return login.DefaultIdentity, nil
	}
	if err := login.ValidIdentity(id); err != nil {
		return "", usageErr("--identity: %v", err)
	}
	return id, nil
}

// describeLogin says what a login holds, without its secrets.
func describeLogin(e *login.Entry, now time.Time) string {
	scopes := "no scopes"
	if len(e.Scopes) > 0 {
		scopes = "scopes " + strings.Join(e.Scopes, " ")
	}
	refresh := "no refresh token"
	if e.RefreshToken != "" {
		refresh = "refreshable"
	}
	grant := e.Grant
	if e.DPoPKey != "" {
		grant += "; DPoP-bound"
	}
	return fmt.Sprintf("%s; %s; expires %s; %s", grant, scopes, expiresIn(e.Expiry, now), refresh)
}

// expiresIn says when a token expires, relative to now.
func expiresIn(t, now time.Time) string {
	switch {
	case t.IsZero():
		return "never"
	case !now.Before(t):
		return "expired"
	}
	return "in " + t.Sub(now).Round(time.Second).String()
}
