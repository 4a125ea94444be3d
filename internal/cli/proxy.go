package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/server/proxy"
	"github.com/askback/askback/internal/text/credential"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ProxyOptions are the options of `mcp-tester proxy`.
type ProxyOptions struct {
	IO *iostreams.IOStreams
	// Output is the recording's file.
	Output string
	// Command is a shell command line that starts a stdio server; Argv is
	// a server program and its arguments given after --.
	Command string
	Argv    []string
	// URL is an HTTP server's URL.
	URL string
	// Listen is the proxy's address (HTTP); ListenAny allows one that is
	// not on loopback.
	Listen    string
	ListenAny bool
	// AddrFile gets the address listened on, once listening.
	AddrFile string
	// Transport names the HTTP transport in the recording's header:
	// streamable or sse.
	Transport string
	// MaxStreams bounds the HTTP exchanges forwarded at once.
	MaxStreams int
	// MaxBytes bounds the recording.
	MaxBytes int64
	// ShowState writes requestState values as they are.
	ShowState bool
	// given names the flags given on the command line.
	given map[string]bool
}

// httpOnlyFlags mean something for a server reached by URL only.
var httpOnlyFlags = []string{"listen", "listen-any", "addr-file", "transport", "max-streams"}

func newProxyCmd(ios *iostreams.IOStreams, runF func(context.Context, *ProxyOptions) error) *cobra.Command {
	opts := &ProxyOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "proxy -o FILE (-c CMD | -u URL | -- PROGRAM [ARGS...])",
		Short: "Record what a real client and a server say, through a transparent proxy",
		Long: `proxy sits between a real MCP client and a server, forwards what each says
unchanged, and records every message (questions and answers included) to FILE,
one JSON object a line, as it passes (see docs/record.md).

Over stdio, give the client "mcp-tester proxy -o FILE -- SERVER ARGS..." (or
-c "SERVER ARGS") as its server command: the proxy starts the server, writes
only the server's frames to stdout, passes the server's stderr to its own, and
ends when either side ends. Over HTTP (-u), it listens on a loopback address
(--listen), prints the URL to give the client on stderr, and forwards to the
server's URL until interrupted.

Credentials pass through and are never recorded (Authorization, DPoP,
cookies, session ids, tokens in URLs); requestState is recorded as its length
unless --show-state.

Exit codes: 0 the client ended the session (stdio) or the proxy was
interrupted (HTTP); the server's own exit code when it exited with one other
than 0; 3 the server ended the session or could not be reached (HTTP: when it
was gone at the end); 2 usage: bad flags, a --listen address it cannot listen
on (taken, not this machine's; nothing was forwarded).`,
		Example: `  mcp-tester ping -c 'mcp-tester proxy -o /tmp/ping.jsonl -- bin/deployer'
  mcp-tester call deploy -c 'mcp-tester proxy -o /tmp/deploy.jsonl -c bin/deployer' --args '{"service":"auth"}' --elicit decline`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash > 0 {
					return usageErr("unexpected argument %q before --: the server program follows --", args[0])
				}
				opts.Argv = args
			} else if len(args) > 0 {
				return usageErr("unexpected argument %q: give the server program after --, as in: mcp-tester proxy -o FILE -- %s", args[0], strings.Join(args, " "))
			}
			opts.given = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.given[f.Name] = true })
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProxy(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write the recording to this file (created 0600, replaced if it exists)")
	f.StringVarP(&opts.Command, "command", "c", "", "start a stdio server with this shell command line")
	f.StringVarP(&opts.URL, "url", "u", "", "forward to the HTTP server at this URL")
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "HTTP: the address to listen on (loopback only, unless --listen-any)")
	f.BoolVar(&opts.ListenAny, "listen-any", false, "HTTP: allow a --listen address that is not on loopback, and requests to any host name")
	f.StringVar(&opts.AddrFile, "addr-file", "", "HTTP: write the address listened on (host:port) to this file once listening")
	f.StringVar(&opts.Transport, "transport", "streamable", "HTTP: the server's transport: streamable, or sse (2024-11-05: its endpoint event is made to name the proxy, and the recording's header says sse)")
	f.IntVar(&opts.MaxStreams, "max-streams", proxy.DefaultMaxStreams, "HTTP: forward at most this many exchanges (requests, event streams) at once")
	f.Int64Var(&opts.MaxBytes, "max-bytes", recording.DefaultMaxBytes, "stop recording (not forwarding) past this many bytes")
	f.BoolVar(&opts.ShowState, "show-state", false, "record requestState values as they are, not as their length")
	return cmd
}

// check refuses what cannot run, before anything starts.
func (o *ProxyOptions) check() error {
	servers := 0
	for _, given := range []bool{o.Command != "", len(o.Argv) > 0, o.URL != ""} {
		if given {
			servers++
		}
	}
	switch {
	case o.Output == "":
		return usageErr("no recording file: give -o FILE")
	case servers == 0:
		return usageErr("no server given: -c \"CMD\" or -- PROGRAM ARGS for a stdio server, -u URL for an HTTP server")
	case servers > 1:
		return usageErr("give one server: -c \"CMD\", -- PROGRAM ARGS, or -u URL")
	case o.MaxStreams <= 0:
		return usageErr("--max-streams %d: give at least 1", o.MaxStreams)
	case o.MaxBytes <= 0:
		return usageErr("--max-bytes %d: give a size in bytes", o.MaxBytes)
	}
	// A recording with no folder to go in is found out before anything
	// starts (exit 2), as every file flag's.
	if err := checkOutPath("-o", o.Output); err != nil {
		return err
	}
	if o.URL == "" {
		for _, name := range httpOnlyFlags {
			if o.given[name] {
				return usageErr("--%s applies to a server reached by URL (-u), not to a stdio server", name)
			}
		}
		return nil
	}
	return o.checkHTTP()
}

// checkHTTP refuses what cannot run of a proxy to an HTTP server: its URL,
// its transport, the address to listen on.
func (o *ProxyOptions) checkHTTP() error {
	if err := checkURLFlag(o.IO.ErrOut, "--url", o.URL); err != nil {
		return err
	}
	switch o.Transport {
	case "streamable", "sse":
	default:
		return usageErr("--transport %q: use streamable or sse", o.Transport)
	}
	if err := checkListenAddr("--listen", o.Listen); err != nil {
		return err
	}
	if err := proxy.CheckListen(o.Listen); errors.Is(err, proxy.ErrNotLoopback) && !o.ListenAny {
		return usageErr("--listen %s is not a loopback address: the proxy forwards whatever reaches it, credentials included; give 127.0.0.1:PORT, or add --listen-any to listen there anyway", o.Listen)
	}
	return checkOutPath("--addr-file", o.AddrFile)
}

func runProxy(ctx context.Context, opts *ProxyOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	// An interrupt or a SIGTERM from the client host ends ctx (main's
	// stopsignal) and the session in order; a client that stops reading
	// is a write error, not a signal that kills the proxy mid-line.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if opts.URL != "" {
		return runHTTPProxy(ctx, opts)
	}
	return runStdioProxy(ctx, opts)
}

func (o *ProxyOptions) writerOptions(secrets []string) recording.WriterOptions {
	return recording.WriterOptions{MaxBytes: o.MaxBytes, ShowState: o.ShowState, Secrets: secrets}
}

func runStdioProxy(ctx context.Context, opts *ProxyOptions) error {
	line := opts.Command
	var cmd *exec.Cmd
	if line != "" {
		cmd = target.ShellCommand(line)
	} else {
		line = shellJoin(opts.Argv)
		cmd = exec.Command(opts.Argv[0], opts.Argv[1:]...)
	}
	rec, f, err := recording.Create(opts.Output, recording.Header{Transport: recording.TransportStdio,
		Server: credential.RedactCommand(line), Writer: "mcp-tester " + Version()}, opts.writerOptions(credential.CommandSecrets(line)))
	if err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	defer f.Close()
	res, err := proxy.Stdio(ctx, proxy.StdioOptions{Cmd: cmd, In: opts.IO.In, Out: opts.IO.TerminalOut(),
		ErrOut: opts.IO.TerminalErr(), Rec: rec})
	if cerr := rec.Close(res.How); cerr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester proxy: %v\n", cerr)
	}
	if err != nil {
		return &exitError{code: ExitUnreachable, err: err}
	}
	switch {
	case res.ExitCode > 0:
		return &exitError{code: res.ExitCode}
	case res.ServerGone:
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester proxy: %s, before the client closed its side\n", res.How)
		return &exitError{code: ExitUnreachable}
	}
	return nil
}

func runHTTPProxy(ctx context.Context, opts *ProxyOptions) error {
	server, _ := url.Parse(opts.URL)
	transport := recording.TransportHTTP
	if opts.Transport == "sse" {
		transport = recording.TransportSSE
	}
	// The address is told (--addr-file) once the recording is there: a
	// client that reads it finds a proxy that records.
	ln, err := listen.Announce(opts.Listen, "")
	if err != nil {
		return listenFailed(opts.Listen, opts.AddrFile, err)
	}
	defer ln.Close()
	rec, f, err := recording.Create(opts.Output, recording.Header{Transport: transport, Server: credential.RedactURL(opts.URL),
		Listen: ln.Addr().String(), Writer: "mcp-tester " + Version()}, opts.writerOptions(credential.Secrets(opts.URL, nil)))
	if err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	defer f.Close()
	if err := listen.Tell(ln, opts.AddrFile); err != nil {
		return listenFailed(opts.Listen, opts.AddrFile, err)
	}
	h := proxy.NewHandler(proxy.HTTPOptions{Server: server, Rec: rec, MaxStreams: opts.MaxStreams,
		AnyHost: opts.ListenAny, SSE: opts.Transport == "sse", Log: opts.IO.ErrOut})
	public := url.URL{Scheme: "http", Host: ln.Addr().String(), Path: server.Path, RawQuery: server.RawQuery}
	fmt.Fprintf(opts.IO.ErrOut, "mcp-tester proxy: give the client %s (forwarding to %s, recording to %s)\n",
		credential.RedactURL(public.String()), credential.RedactURL(opts.URL), opts.Output)
	srv := httpserve.Server(h, &httpserve.Options{MaxBody: proxy.MaxMessage})
	err = proxy.Serve(ctx, srv, ln, h)
	gone := h.ServerGone()
	how := "the proxy was interrupted"
	if err != nil {
		how = "the proxy stopped: " + err.Error()
	}
	if cerr := rec.Close(how); cerr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester proxy: %v\n", cerr)
	}
	if err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	if gone != "" {
		return &exitError{code: ExitUnreachable, err: fmt.Errorf("the server was gone at the end (%s)", gone)}
	}
	return nil
}

// shellJoin writes argv as a command line, quoting the words that need it,
// for the recording's header.
func shellJoin(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#=!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words[i] = a
	}
	return strings.Join(words, " ")
}
