package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/ui"
	"github.com/spf13/cobra"
)

// UIOptions are the options of `mcp-tester ui`.
type UIOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	// Listen is the address the page is served on (--listen).
	Listen string
	// NoOpen prints the address without opening a browser (--no-open).
	NoOpen bool
	// Getenv reads the environment (the browser to open); nil is os.Getenv.
	Getenv func(string) string
}

func newUICmd(io *iostreams.IOStreams, runF func(context.Context, *UIOptions) error) *cobra.Command {
	opts := &UIOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "ui [flags]",
		Short: "Explore a server in the browser: answer its questions, see every round, save a script",
		Long: `Serve a page in the browser where you connect to a server (-c, -u, -p, or
from the page), see its name, version, protocol era, capabilities and
instructions, list its tools, prompts and resources, call them with a form
built from their input schema, and answer the questions the server asks the
way a client shows them: a form built from the requested schema, a URL with
its domain shown before you consent, a reply box for sampling. Each call
shows its rounds as a timeline: what was asked, what was answered, and that
the requestState went back untouched. Every message both ways is in the
message log, filtered by direction and method, each with its raw JSON; the
steps of an OAuth login are listed; every credential is hidden, as in
proxy's recordings. Save the session as a .mcp script (what mcp-tester script
writes) or as a recording (what mcp-tester proxy writes), run the script,
and run audit, scan, inspect and grade, from the page.

The page listens on loopback only unless --listen names another address,
and every request must carry the random token of the printed address (the
first segment of every path of the page; no cookie, which the browser would
send to every other port of the host): only the person holding it can
reach the page or start a command. The page runs no script and fetches nothing from elsewhere. It
stops on Ctrl-C.

Exit codes: 2 usage: bad flags, a --listen address it cannot listen on
(taken, not this machine's, every address of it: 0.0.0.0, [::] or no host;
nothing was served).`,
		Example: `  mcp-tester ui -c bin/deployer --listen 127.0.0.1:7777 --no-open &
  curl -s http://127.0.0.1:7777/
  bin/deployer -http 127.0.0.1:8080 &
  mcp-tester ui -u http://127.0.0.1:8080/mcp --protocol 2025-11-25 --listen 127.0.0.1:7778 --no-open &`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUI(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addRootFlag(cmd, &opts.Conn)
	addAskFlags(cmd, &opts.Conn)
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "serve the page on this address (a port of 0 picks a free one); anything but loopback is reachable from other machines; name one address, not 0.0.0.0 or [::]")
	f.BoolVar(&opts.NoOpen, "no-open", false, "print the page's address without opening a browser")
	return cmd
}

func (o *UIOptions) getenv(name string) string {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

func runUI(ctx context.Context, opts *UIOptions) error {
	if opts.Conn.Command != "" && opts.Conn.URL != "" {
		return usageErr("give -c or -u, not both")
	}
	if err := checkListenAddr("--listen", opts.Listen); err != nil {
		return err
	}
	if ui.Unspecified(opts.Listen) {
		return usageErr("--listen %s is every address of this machine, and the page answers only requests addressed to the one it listens on (it checks their Host, against DNS rebinding): name one, 127.0.0.1:PORT or this machine's address on its network: nothing was served", listen.Shown(opts.Listen))
	}
	browser := interactive.SystemBrowser(opts.getenv, runtime.GOOS)
	wd, _ := os.Getwd()
	srv, err := ui.New(ui.Options{
		SessionOptions: func(t ui.Target) (session.Options, error) {
			c := opts.Conn
			c.Command, c.URL, c.Protocol, c.Roots = t.Command, t.URL, t.Protocol, t.Roots
			return c.sessionOptions(opts.IO)
		},
		Run: func(ctx context.Context, args []string, out, errOut io.Writer) int {
			return Main(ctx, &iostreams.IOStreams{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, args)
		},
		TargetArgs: opts.runArgs,
		Open:       browser.Open,
		WorkDir:    wd,
		Roots:      opts.Conn.Roots,
	})
	if err != nil {
		return err
	}
	ln, err := srv.Listen(opts.Listen)
	if err != nil {
		return listenFailed(opts.Listen, "", err)
	}
	if !ui.IsLoopback(ln.Addr().String()) {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: --listen %s is not loopback: anyone who can reach this address and has the token can start commands on this machine\n", opts.Listen)
	}
	if opts.Conn.Command != "" || opts.Conn.URL != "" || opts.Conn.Profile != "" {
		if err := srv.Connect(ctx, ui.Target{Command: opts.Conn.Command, URL: opts.Conn.URL, Protocol: opts.Conn.Protocol, Roots: opts.Conn.Roots}); err != nil {
			ln.Close()
			srv.Close()
			return err
		}
	}
	url := srv.URL(ln)
	fmt.Fprintf(opts.IO.Out, "mcp-tester ui: open %s\n", url)
	if f, ok := opts.IO.Out.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	if !opts.NoOpen {
		if err := browser.Open(ctx, url); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: could not open a browser (%v): open the address above\n", err)
		}
	}
	return srv.Serve(ctx, ln)
}

// runArgs are the flags of a command the page runs (test, audit, scan,
// inspect, grade) that reach t as the page's own sessions do: the
// connection flags mcp-tester ui was given (profile, headers, transport,
// time limit, login), with t's server and protocol.
func (o *UIOptions) runArgs(t ui.Target) []string {
	c := o.Conn
	var out []string
	flag := func(name, v string) {
		if v != "" {
			out = append(out, name, v)
		}
	}
	if t.Command == "" && t.URL == "" {
		// The profile's own server (scan would scan a profile's server
		// besides the one -c or -u names).
		flag("-p", c.Profile)
	}
	flag("-c", t.Command)
	if t.Command == "" {
		flag("-u", t.URL)
	}
	flag("--protocol", t.Protocol)
	out = append(out, "--timeout", c.Timeout.String())
	if ct := c.connectTimeout(); ct != 0 {
		out = append(out, "--connect-timeout", max(ct, 0).String())
	}
	if t.URL == "" {
		return out // the rest applies to a server reached by URL
	}
	for _, h := range c.Headers {
		flag("-H", h)
	}
	if c.Transport != target.TransportAuto {
		flag("--transport", c.Transport)
	}
	a := c.Auth
	flag("--identity", a.Identity)
	flag("--client-id", a.ClientID)
	flag("--client-metadata-url", a.ClientMetadataURL)
	if a.ClientCredentials {
		out = append(out, "--client-credentials")
	}
	flag("--client-key", a.ClientKey)
	flag("--assertion-file", a.AssertionFile)
	flag("--id-token-file", a.IDTokenFile)
	flag("--idp-issuer", a.IdPIssuer)
	flag("--idp-client-id", a.IdPClientID)
	for _, sc := range a.Scopes {
		flag("--scope", sc)
	}
	if a.Timeout > 0 {
		out = append(out, "--login-timeout", a.Timeout.String())
	}
	return out
}
