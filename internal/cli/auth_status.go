package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/spf13/cobra"
)

// AuthStatusOptions are the options of `mcp-tester auth status`.
type AuthStatusOptions struct {
	IO *iostreams.IOStreams
	// Server is a URL or a profile name; empty lists every login.
	Server string
	// Identity keeps only this identity's login.
	Identity string
	// Format is text or json.
	Format string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

func newAuthStatusCmd(ios *iostreams.IOStreams, runF func(context.Context, *AuthStatusOptions) error) *cobra.Command {
	opts := &AuthStatusOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "status [SERVER] [flags]",
		Short: "List the cached logins (never their tokens)",
		Long: `List the cached logins: server, identity, how the login was made, the
client, the scopes granted, when the token expires and whether it can be
refreshed. Tokens and secrets are never shown. With SERVER (a URL or a
profile), only its logins, and exit status 1 when there is none.`,
		Example: `  bin/protected -addr 127.0.0.1:8090 &
  mcp-tester auth login http://127.0.0.1:8090/mcp
  mcp-tester auth status
  mcp-tester auth status http://127.0.0.1:8090/mcp --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Server = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthStatus(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Identity, "identity", "", "only this identity's login")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

// loginStatus is one login as `auth status --format json` shows it.
type loginStatus struct {
	Server      string    `json:"server"`
	Identity    string    `json:"identity"`
	Grant       string    `json:"grant"`
	ClientID    string    `json:"client_id,omitempty"`
	Scopes      []string  `json:"scopes"`
	Expires     time.Time `json:"expires,omitzero"`
	Expired     bool      `json:"expired"`
	Refreshable bool      `json:"refreshable"`
	// DPoP says the token is bound to the login's key (RFC 9449).
	DPoP  bool      `json:"dpop"`
	Saved time.Time `json:"saved"`
}

func runAuthStatus(opts *AuthStatusOptions) error {
	server, err := opts.server()
	if err != nil {
		return err
	}
	cache, err := login.DefaultCache()
	if err != nil {
		return usageErr("%v", err)
	}
	entries, problems, err := cache.List()
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: %v\n", p)
	}
	now := time.Now()
	if opts.Now != nil {
		now = opts.Now()
	}
	out := loginStatuses(entries, server, opts.Identity, now)
	var none error
	if len(out) == 0 && server != "" {
		none = &exitError{code: ExitFailed, err: fmt.Errorf("not logged in to %s; log in with: mcp-tester auth login %s", server, opts.Server)}
	}
	if opts.Format == report.JSON {
		if err := printer.JSON(opts.IO.Out, out); err != nil {
			return err
		}
		if none != nil {
			return &exitError{code: ExitFailed}
		}
		return nil
	}
	if none != nil {
		return none
	}
	if len(out) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No cached logins in %s\n", cache.Dir)
		return nil
	}
	return printLoginTable(opts.IO.Out, out, now)
}

// server is the login key of the server the logins are asked of, "" for
// every server; it checks the identity asked for.
func (opts *AuthStatusOptions) server() (string, error) {
	var conn ConnOptions
	if err := resolveServer(opts.Server, &conn); err != nil {
		return "", err
	}
	var server string
	if conn.URL != "" {
		server, _ = login.Key(conn.URL)
	}
	if opts.Identity != "" {
		if _, err := identityOrDefault(opts.Identity); err != nil {
			return "", err
		}
	}
	return server, nil
}

// loginStatuses are the cached logins to server (every one for "") of
// identity (every one for ""), as of now.
func loginStatuses(entries []*login.Entry, server, identity string, now time.Time) []loginStatus {
	out := []loginStatus{}
	for _, e := range entries {
		if (server != "" && e.Server != server) || (identity != "" && e.Identity != identity) {
			continue
		}
		scopes := e.Scopes
		if scopes == nil {
			scopes = []string{}
		}
		out = append(out, loginStatus{Server: e.Server, Identity: e.Identity, Grant: e.Grant, ClientID: e.ClientID, Scopes: scopes,
			Expires: e.Expiry, Expired: !e.Expiry.IsZero() && !now.Before(e.Expiry), Refreshable: e.RefreshToken != "", DPoP: e.DPoPKey != "", Saved: e.Saved})
	}
	return out
}

// printLoginTable writes the logins as a table, one a row.
func printLoginTable(w io.Writer, out []loginStatus, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tIDENTITY\tGRANT\tCLIENT\tSCOPES\tEXPIRES\tREFRESH")
	for _, s := range out {
		refresh := "no"
		if s.Refreshable {
			refresh = "yes"
		}
		grant := s.Grant
		if s.DPoP {
			grant += "+DPoP"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(s.Server, 60), s.Identity, grant, cell(s.ClientID, 40),
			cell(strings.Join(s.Scopes, " "), 40), expiresIn(s.Expires, now), refresh)
	}
	return tw.Flush()
}
