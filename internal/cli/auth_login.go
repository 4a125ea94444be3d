package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	f.DurationVar(&opts.Conn.Timeout, "timeout", 30*time.Second, "time limit for each request once connected: the tools listed with the new token (0: none)")
	f.DurationVar(&opts.Conn.ConnectTimeout, "connect-timeout", 0, "time limit for reaching the server, each request for its metadata and the initialize handshake (default: the larger of 1m and --timeout; 0: none)")
	addLoginFlags(cmd, &opts.Conn.Auth)
	f.Lookup("login-timeout").Usage = "time limit of the login, the person's part in the browser included (default 5m)"
	_ = f.MarkHidden("login") // auth login always logs in
	return cmd
}

// unreachableLogin is the error of a login whose server could not be
// reached (err): worded as every command that connects words it, exit 3.
func unreachableLogin(sopts session.Options, err error) error {
	op := "connect to " + sopts.Target.Describe()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &exitError{code: ExitUnreachable, err: fmt.Errorf("%s: the server did not answer within %s; %s", op, sopts.ConnectLimit(), flagHint(session.SettingConnectTimeout, ""))}
	}
	if le := login.AsError(err); le != nil {
		err = le.Err // the reason, without "log in to" the server named again
	}
	return &exitError{code: ExitUnreachable, err: fmt.Errorf("%s: %w", op, err)}
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
	// Reaching the server (the request its refusal answers) and each
	// request for its metadata are bounded by --connect-timeout; the login
	// as a whole, the person's part in it, by --login-timeout.
	probe := sopts.Target.HTTPClient()
	if limit := sopts.ConnectLimit(); limit > 0 {
		bounded := *probe
		bounded.Timeout = limit
		probe = &bounded
		if l := c.Auth.built; l != nil && l.HTTPClient == nil {
			l.HTTPClient = &http.Client{Timeout: limit}
		}
	}
	if err := h.Login(ctx, probe); err != nil {
		if errors.Is(err, login.ErrUnreachable) && ctx.Err() == nil {
			return unreachableLogin(sopts, err)
		}
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
