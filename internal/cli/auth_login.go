package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/session"
	"github.com/spf13/cobra"
)

// AuthLoginOptions are the options of `mcp-tester auth login`.
type AuthLoginOptions struct {
	IO *iostreams.IOStreams
	// Server is a URL or a profile name.
	Server string
	// Conn holds the headers, the time limit and the login flags.
	Conn ConnOptions
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

func newAuthLoginCmd(ios *iostreams.IOStreams, runF func(context.Context, *AuthLoginOptions) error) *cobra.Command {
	opts := &AuthLoginOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "login SERVER [flags]",
		Short: "Log in to a server now and cache the login",
		Long: `Log in to a server now, whether or not a login is cached: the browser opens
on the authorization server's page (--no-browser prints the address and
reads back the one the browser ends on), and the login is cached for every
later command. The server is then asked for its tools with the new token.
SERVER is the server's URL or the name of a profile.`,
		Example: `  bin/protected -addr 127.0.0.1:8090 -client tester:s3cret &
  mcp-tester auth login http://127.0.0.1:8090/mcp
  mcp-tester profile add staging -u http://127.0.0.1:8090/mcp
  mcp-tester auth login staging --identity bob
  MCP_TESTER_CLIENT_SECRET=s3cret mcp-tester auth login http://127.0.0.1:8090/mcp --identity robot \
      --client-id tester --client-credentials`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthLogin(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.Conn.flags = f
	stringsVarP(f, &opts.Conn.Headers, "header", "H", `send "Name: value" with every request to the server (repeatable)`)
	f.DurationVar(&opts.Conn.Timeout, "timeout", 30*time.Second, "time limit for reaching the server (the login has --login-timeout)")
	addLoginFlags(cmd, &opts.Conn.Auth)
	f.Lookup("login-timeout").Usage = "time limit of the login (default 5m)"
	_ = f.MarkHidden("login") // auth login always logs in
	return cmd
}

func runAuthLogin(ctx context.Context, opts *AuthLoginOptions) error {
	c := &opts.Conn
	if err := resolveServer(opts.Server, c); err != nil {
		return err
	}
	c.Auth.Login = true // the cached login is not used
	c.MaxRounds = 1
	if c.Auth.Timeout <= 0 {
		// Logging in is the command: a person has its default time.
		c.Auth.Timeout = login.DefaultTimeout
	}
	sopts, err := c.sessionOptions(opts.IO)
	if err != nil {
		return err
	}
	h, err := sopts.Target.LoginHandler()
	if err != nil {
		return usageErr("%v", err)
	}
	if h == nil {
		return usageErr("%s is reached with an Authorization header of its own (-H or the profile): there is nothing to log in to", c.URL)
	}
	lctx, cancel := context.WithTimeout(ctx, c.Timeout+c.Auth.Timeout)
	defer cancel()
	if err := h.Login(lctx, sopts.Target.HTTPClient()); err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	// Prove the token: the server's tools, listed with it.
	s, err := session.Open(ctx, sopts)
	if err != nil {
		return fmt.Errorf("logged in, but %w", err)
	}
	defer s.Close()
	if _, _, err := s.ListTools(ctx, session.Pages{All: true}); err != nil {
		return fmt.Errorf("logged in, but %w", err)
	}
	e := h.Entry()
	if e == nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("log in to %s: no token was obtained", h.Server())}
	}
	now := time.Now()
	if opts.Now != nil {
		now = opts.Now()
	}
	fmt.Fprintf(opts.IO.Out, "Logged in to %s as %s (%s)\n", h.Server(), h.Identity(), describeLogin(e, now))
	return nil
}
