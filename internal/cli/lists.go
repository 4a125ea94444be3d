package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/internal/session"
	"github.com/askback/askback/internal/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// maxPages bounds --all: a server whose cursors never end is stopped.
const maxPages = 1000

// ListOptions are the options of the list and single-call subcommands of
// tools, prompts and resources, and of ping, logging and complete.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Format string // text or json
	Args   string
	Cursor string
	All    bool
	Count  int
	Human  HumanOptions
}

// addFormatFlag adds --format text|json and, when alias is set, --json as
// its shorthand.
func addFormatFlag(cmd *cobra.Command, format *string, alias *bool) {
	*format = "text"
	cmd.Flags().Var(formatValue{format}, "format", "output format: text or json")
	if alias != nil {
		f := cmd.Flags().VarPF(jsonAlias{format}, "json", "", "print JSON (same as --format json)")
		f.NoOptDefVal = "true"
	}
}

type formatValue struct{ p *string }

func (f formatValue) String() string {
	if f.p == nil {
		return "text"
	}
	return *f.p
}
func (f formatValue) Type() string { return "text|json" }
func (f formatValue) Set(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("%q: use text or json", s)
	}
	*f.p = s
	return nil
}

type jsonAlias struct{ p *string }

func (j jsonAlias) String() string { return strconv.FormatBool(j.p != nil && *j.p == "json") }
func (j jsonAlias) Type() string   { return "bool" }
func (j jsonAlias) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*j.p = "json"
	}
	return nil
}

// addPageFlags adds --cursor and --all.
func addPageFlags(cmd *cobra.Command, opts *ListOptions) {
	cmd.Flags().StringVar(&opts.Cursor, "cursor", "", "start at this page (the cursor a previous listing printed)")
	cmd.Flags().BoolVar(&opts.All, "all", false, fmt.Sprintf("follow every page (at most %d)", maxPages))
}

// sdkErr turns an error of a direct go-sdk call into a session error, so
// that the exit code says what happened.
func sdkErr(ctx context.Context, op string, err error, timeout time.Duration) error {
	if err == nil {
		return nil
	}
	e := &session.Error{Kind: session.KindProtocol, Op: op, Err: err}
	switch {
	case session.RPCError(err) != nil:
		e.Kind = session.KindServer
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.Kind, e.Err = session.KindUnreachable, fmt.Errorf("the server did not answer within %s", timeout)
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF):
		e.Kind = session.KindUnreachable
	}
	return e
}

// toolsPage fetches one page of tools for pages.
func toolsPage(s *session.Session) func(context.Context, string) ([]*mcp.Tool, string, error) {
	return func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		r, err := s.SDK().ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}
}

// promptsPage fetches one page of prompts for pages.
func promptsPage(s *session.Session) func(context.Context, string) ([]*mcp.Prompt, string, error) {
	return func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := s.SDK().ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	}
}

// resourcesPage fetches one page of resources for pages.
func resourcesPage(s *session.Session) func(context.Context, string) ([]*mcp.Resource, string, error) {
	return func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := s.SDK().ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	}
}

// templatesPage fetches one page of resourceTemplates for pages.
func templatesPage(s *session.Session) func(context.Context, string) ([]*mcp.ResourceTemplate, string, error) {
	return func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := s.SDK().ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	}
}

// pages fetches one page, or every page with --all, starting at --cursor.
// It returns the items and the cursor of the next page ("" at the end).
func pages[T any](ctx context.Context, opts *ListOptions, op string, fetch func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, string, error) {
	var all []T
	cursor := opts.Cursor
	seen := map[string]bool{}
	for range maxPages {
		rctx, cancel := target.WithTimeout(ctx, opts.Conn.Timeout)
		items, next, err := fetch(rctx, cursor)
		err = sdkErr(rctx, op, err, opts.Conn.Timeout)
		cancel()
		if err != nil {
			return nil, "", err
		}
		all = append(all, items...)
		if !opts.All || next == "" {
			return all, next, nil
		}
		if seen[next] {
			return nil, "", &session.Error{Kind: session.KindProtocol, Op: op, Err: fmt.Errorf("the server sent cursor %q twice; stopped", next)}
		}
		seen[next] = true
		cursor = next
	}
	return nil, "", &session.Error{Kind: session.KindProtocol, Op: op, Err: fmt.Errorf("more than %d pages; stopped", maxPages)}
}

// listed prints a listing: JSON as the server's list result, or a table
// and, when there are more pages, how to get them.
func listed(opts *ListOptions, key string, items any, n int, next string, table func(w io.Writer)) error {
	if opts.Format == "json" {
		m := map[string]any{key: items}
		if next != "" {
			m["nextCursor"] = next
		}
		return printer.JSON(opts.IO.Out, m)
	}
	if n == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No %s.\n", noun(key))
	} else {
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
		table(tw)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if next != "" {
		fmt.Fprintf(opts.IO.ErrOut, "More %s: add --cursor %s for the next page, or --all for every page.\n", noun(key), next)
	}
	return nil
}

func noun(key string) string {
	if key == "resourceTemplates" {
		return "resource templates"
	}
	return key
}

// cell makes text fit a table cell: one line, at most max runes.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}

func newToolsCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "List a server's tools",
		Example: `  mcp-tester tools list -c ./deployer
  mcp-tester call deploy -c ./deployer --args '{"service":"auth-service"}' --elicit decline`}
	opts := &ListOptions{IO: ios}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the server's tools",
		Long: `List the server's tools as a table: name, hints from the annotations
(ro: read-only, destructive, idempotent) and description. One page by
default; --all follows every page, --cursor starts at a given one.`,
		Example: `  mcp-tester tools list -c ./deployer
  mcp-tester tools list -c ./server --all --format json
  mcp-tester tools list -p staging --cursor eyJvZmZzZXQiOjI1fQ`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runToolsList(cmd.Context(), opts)
		},
	}
	addConnFlags(list, &opts.Conn)
	addPageFlags(list, opts)
	addFormatFlag(list, &opts.Format, new(bool))
	cmd.AddCommand(list)
	return cmd
}

func runToolsList(ctx context.Context, opts *ListOptions) error {
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	tools, next, err := pages(ctx, opts, "tools/list", toolsPage(s))
	if err != nil {
		return err
	}
	return listed(opts, "tools", nonNil(tools), len(tools), next, func(w io.Writer) {
		fmt.Fprintln(w, "NAME\tHINTS\tDESCRIPTION")
		for _, t := range tools {
			fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name, hints(t.Annotations), cell(t.Description, 100))
		}
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// hints summarizes a tool's annotations.
func hints(a *mcp.ToolAnnotations) string {
	if a == nil {
		return "-"
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "ro")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if len(h) == 0 {
		return "-"
	}
	return strings.Join(h, ",")
}

func newPromptsCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "prompts", Short: "List and get a server's prompts",
		Example: `  mcp-tester prompts list -c ./server
  mcp-tester prompts get greeting -c ./server --args '{"name":"Ada"}'`}
	lopts := &ListOptions{IO: ios}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the server's prompts",
		Example: `  mcp-tester prompts list -c ./server
  mcp-tester prompts list -c ./server --all --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPromptsList(cmd.Context(), lopts)
		},
	}
	addConnFlags(list, &lopts.Conn)
	addPageFlags(list, lopts)
	addFormatFlag(list, &lopts.Format, new(bool))

	opts := &ListOptions{IO: ios}
	get := &cobra.Command{
		Use:   "get NAME",
		Short: "Get a prompt and answer the questions it asks",
		Long: `Get a prompt. Questions the server asks (input_required, or elicitation/create
from older servers) are answered like those of call: --elicit answers in
order, questions left over are declined, each is printed as an [ELICIT] line.`,
		Example: `  mcp-tester prompts get release-notes -c ./server --args '{"version":"2.4.1"}' --elicit accept
  mcp-tester prompts get greeting -c ./server --args '{"name":"Ada"}' --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPromptGet(cmd.Context(), opts, args[0])
		},
	}
	addConnFlags(get, &opts.Conn)
	addElicitFlag(get, &opts.Conn)
	addHumanFlags(get, &opts.Human, true)
	get.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "prompts")
	addRawFlag(get, &opts.Conn)
	get.Flags().StringVar(&opts.Args, "args", "{}", "the prompt's arguments as a JSON object of strings")
	addFormatFlag(get, &opts.Format, new(bool))
	cmd.AddCommand(list, get)
	return cmd
}

func runPromptsList(ctx context.Context, opts *ListOptions) error {
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	prompts, next, err := pages(ctx, opts, "prompts/list", promptsPage(s))
	if err != nil {
		return err
	}
	return listed(opts, "prompts", nonNil(prompts), len(prompts), next, func(w io.Writer) {
		fmt.Fprintln(w, "NAME\tARGUMENTS\tDESCRIPTION")
		for _, p := range prompts {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name+"*")
				} else {
					args = append(args, a.Name)
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", p.Name, cell(strings.Join(args, ","), 40), cell(p.Description, 70))
		}
	})
}

func runPromptGet(ctx context.Context, opts *ListOptions, name string) error {
	var args map[string]string
	if opts.Args != "" {
		if err := json.Unmarshal([]byte(opts.Args), &args); err != nil {
			return usageErr("--args: a prompt takes a JSON object of strings: %v", err)
		}
	}
	specs, err := opts.Conn.specs()
	if err != nil {
		return err
	}
	s, err := opts.Conn.open(ctx, opts.IO, answer.Chain{opts.Human.scripted(opts.IO, answer.NewQueue(specs...)), opts.Human.answerer(opts.IO)})
	if err != nil {
		return err
	}
	defer s.Close()
	res, asked, err := s.GetPrompt(ctx, name, args, nil)
	if err != nil {
		return err
	}
	if err := opts.Human.record("prompts/get", name, args, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		return opts.Conn.printRaw(opts.IO.Out, "prompts/get")
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res)
	}
	printer.PromptResult(opts.IO.Out, res)
	return nil
}

func newResourcesCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "resources", Short: "List, read and watch a server's resources",
		Example: `  mcp-tester resources list -c ./server --all
  mcp-tester resources templates -c ./server
  mcp-tester resources read note://01 -c ./server
  mcp-tester resources subscribe clock://now -c ./server --count 3`}

	lopts := &ListOptions{IO: ios}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the server's resources",
		Example: `  mcp-tester resources list -c ./server
  mcp-tester resources list -c ./server --all --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runResourcesList(cmd.Context(), lopts)
		},
	}
	addConnFlags(list, &lopts.Conn)
	addPageFlags(list, lopts)
	addFormatFlag(list, &lopts.Format, new(bool))

	topts := &ListOptions{IO: ios}
	templates := &cobra.Command{
		Use:     "templates",
		Short:   "List the server's resource templates",
		Example: `  mcp-tester resources templates -c ./server --all`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTemplatesList(cmd.Context(), topts)
		},
	}
	addConnFlags(templates, &topts.Conn)
	addPageFlags(templates, topts)
	addFormatFlag(templates, &topts.Format, new(bool))

	opts := &ListOptions{IO: ios}
	read := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource and answer the questions it asks",
		Long: `Read a resource. Questions the server asks are answered like those of call:
--elicit answers in order, questions left over are declined.`,
		Example: `  mcp-tester resources read config://prod -c ./server --elicit accept
  mcp-tester resources read note://01 -c ./server --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResourceRead(cmd.Context(), opts, args[0])
		},
	}
	addConnFlags(read, &opts.Conn)
	addElicitFlag(read, &opts.Conn)
	addHumanFlags(read, &opts.Human, true)
	read.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "resources")
	addRawFlag(read, &opts.Conn)
	addFormatFlag(read, &opts.Format, new(bool))

	sopts := &ListOptions{IO: ios}
	sub := &cobra.Command{
		Use:   "subscribe URI",
		Short: "Print a resource's updates until interrupted, --count or --timeout",
		Long: `Subscribe to a resource and print a line for each update the server sends.
It stops after --count updates, when --timeout (if given) has passed, or on
Ctrl-C, then unsubscribes. With protocol 2026-07-28 the subscription is a
subscriptions/listen stream; with older versions, resources/subscribe.`,
		Example: `  mcp-tester resources subscribe clock://now -c ./server --count 3
  mcp-tester resources subscribe file:///var/log/app.log -u http://127.0.0.1:8080/mcp --timeout 1m --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSubscribe(cmd.Context(), sopts, args[0], cmd.Flags().Changed("timeout"))
		},
	}
	addConnFlags(sub, &sopts.Conn)
	sub.ValidArgsFunction = completeFromServer(ios, &sopts.Conn, "resources")
	sub.Flags().IntVar(&sopts.Count, "count", 0, "stop after this many updates (0: no limit)")
	addFormatFlag(sub, &sopts.Format, nil)

	cmd.AddCommand(list, templates, read, sub)
	return cmd
}

func runResourcesList(ctx context.Context, opts *ListOptions) error {
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	res, next, err := pages(ctx, opts, "resources/list", resourcesPage(s))
	if err != nil {
		return err
	}
	return listed(opts, "resources", nonNil(res), len(res), next, func(w io.Writer) {
		fmt.Fprintln(w, "URI\tNAME\tTYPE\tDESCRIPTION")
		for _, r := range res {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.URI, cell(r.Name, 30), cell(r.MIMEType, 30), cell(r.Description, 60))
		}
	})
}

func runTemplatesList(ctx context.Context, opts *ListOptions) error {
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	res, next, err := pages(ctx, opts, "resources/templates/list", templatesPage(s))
	if err != nil {
		return err
	}
	return listed(opts, "resourceTemplates", nonNil(res), len(res), next, func(w io.Writer) {
		fmt.Fprintln(w, "URI TEMPLATE\tNAME\tTYPE\tDESCRIPTION")
		for _, r := range res {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.URITemplate, cell(r.Name, 30), cell(r.MIMEType, 30), cell(r.Description, 60))
		}
	})
}

func runResourceRead(ctx context.Context, opts *ListOptions, uri string) error {
	specs, err := opts.Conn.specs()
	if err != nil {
		return err
	}
	s, err := opts.Conn.open(ctx, opts.IO, answer.Chain{opts.Human.scripted(opts.IO, answer.NewQueue(specs...)), opts.Human.answerer(opts.IO)})
	if err != nil {
		return err
	}
	defer s.Close()
	res, asked, err := s.ReadResource(ctx, uri, nil)
	if err != nil {
		return err
	}
	if err := opts.Human.record("resources/read", uri, nil, asked.Questions, res); err != nil {
		return err
	}
	if opts.Conn.Raw {
		return opts.Conn.printRaw(opts.IO.Out, "resources/read")
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res)
	}
	printer.ResourceResult(opts.IO.Out, res)
	return nil
}

// listen installs middleware that hands the params of each notification
// named method to a channel (dropping them when it is full) and returns
// the channel.
func (o *ConnOptions) listen(method string) <-chan mcp.Params {
	ch := make(chan mcp.Params, 256)
	o.middleware = append(o.middleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if m == method && req != nil {
				select {
				case ch <- req.GetParams():
				default:
				}
			}
			return next(ctx, m, req)
		}
	})
	return ch
}

func runSubscribe(ctx context.Context, opts *ListOptions, uri string, limited bool) error {
	if opts.Count < 0 {
		return usageErr("--count must be 0 or more")
	}
	updates := opts.Conn.listen("notifications/resources/updated")
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if caps := serverCaps(s); caps.Resources == nil || !caps.Resources.Subscribe {
		return &session.Error{Kind: session.KindServer, Op: "resources/subscribe " + strconv.Quote(uri), Err: errors.New("the server does not offer subscriptions (its capabilities have no resources.subscribe)")}
	}
	errc := make(chan error, 1)
	go func() {
		// With 2026-07-28 this call lasts as long as the subscription.
		errc <- s.SDK().Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}()
	var deadline <-chan time.Time
	if limited && opts.Conn.Timeout > 0 {
		t := time.NewTimer(opts.Conn.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	start := time.Now()
	n := 0
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = s.SDK().Unsubscribe(uctx, &mcp.UnsubscribeParams{URI: uri})
	}()
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.ErrOut, "Subscribed to %s; waiting for updates.\n", uri)
	}
	for opts.Count == 0 || n < opts.Count {
		select {
		case p := <-updates:
			up, _ := p.(*mcp.ResourceUpdatedNotificationParams)
			got := uri
			if up != nil {
				got = up.URI
			}
			n++
			if opts.Format == "json" {
				if err := printer.JSON(compactWriter{opts.IO.Out}, map[string]any{"uri": got, "n": n, "t_ms": time.Since(start).Milliseconds()}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(opts.IO.Out, "updated %s\n", got)
			}
		case err := <-errc:
			if err != nil && ctx.Err() == nil {
				return sdkErr(ctx, "resources/subscribe "+strconv.Quote(uri), err, opts.Conn.Timeout)
			}
			errc = nil
		case <-deadline:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// compactWriter turns printer.JSON's indented output into one line.
type compactWriter struct{ w io.Writer }

func (c compactWriter) Write(b []byte) (int, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return c.w.Write(b)
	}
	buf.WriteByte('\n')
	_, err := c.w.Write(buf.Bytes())
	return len(b), err
}

func newPingCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ListOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "ping",
		Short: "Check that a server answers",
		Example: `  mcp-tester ping -c ./deployer
  mcp-tester ping -p staging --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := opts.Conn.open(ctx, ios, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			start := time.Now()
			if err := s.Ping(ctx); err != nil {
				return err
			}
			if opts.Format == "json" {
				return printer.JSON(ios.Out, map[string]any{"ok": true, "server": s.ServerName(), "protocolVersion": s.ProtocolVersion(), "ms": time.Since(start).Milliseconds()})
			}
			fmt.Fprintln(ios.Out, "pong")
			return nil
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

// logLevels are the levels of logging/setLevel, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func newLoggingCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ListOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "logging LEVEL",
		Short: "Set the server's logging level and print its log messages",
		Long: `Set the level of the log messages the server sends (logging/setLevel):
debug, info, notice, warning, error, critical, alert or emergency. With
--count N, wait for N messages (bounded by --timeout) and print them.
Logging is deprecated as of protocol 2026-07-28 but still works.`,
		Example: `  mcp-tester logging warning -c ./server
  mcp-tester logging debug -c ./server --count 4 --timeout 5s`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: logLevels,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogging(cmd.Context(), opts, args[0])
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.Flags().IntVar(&opts.Count, "count", 0, "wait for this many log messages and print them")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runLogging(ctx context.Context, opts *ListOptions, level string) error {
	if !contains(logLevels, level) {
		return usageErr("logging level %q: use one of %s", level, strings.Join(logLevels, ", "))
	}
	if opts.Count < 0 {
		return usageErr("--count must be 0 or more")
	}
	msgs := opts.Conn.listen("notifications/message")
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	rctx, cancel := target.WithTimeout(ctx, opts.Conn.Timeout)
	defer cancel()
	//lint:ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it
	err = s.SDK().SetLoggingLevel(rctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)})
	if err != nil {
		if v := s.ProtocolVersion(); v >= "2026-07-28" && opts.Conn.URL != "" {
			// Stateless servers refuse the deprecated request: with 2026-07-28
			// the level travels in each request's _meta instead.
			err = fmt.Errorf("%w (with protocol %s a stateless server takes the level in each request's _meta %q; use --protocol 2025-11-25 to set it for the session)", err, v, "io.modelcontextprotocol/logLevel")
		}
		return sdkErr(rctx, "logging/setLevel", err, opts.Conn.Timeout)
	}
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.ErrOut, "Logging level set to %s.\n", level)
	}
	for n := 0; n < opts.Count; n++ {
		select {
		case p := <-msgs:
			//lint:ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it
			m, _ := p.(*mcp.LoggingMessageParams)
			if m == nil {
				continue
			}
			if opts.Format == "json" {
				if err := printer.JSON(compactWriter{opts.IO.Out}, m); err != nil {
					return err
				}
				continue
			}
			data, _ := json.Marshal(m.Data)
			if s, ok := m.Data.(string); ok {
				data = []byte(s)
			}
			logger := ""
			if m.Logger != "" {
				logger = m.Logger + ": "
			}
			fmt.Fprintf(opts.IO.Out, "[%s] %s%s\n", m.Level, logger, data)
		case <-rctx.Done():
			if ctx.Err() != nil {
				return nil
			}
			return &session.Error{Kind: session.KindUnreachable, Op: "notifications/message", Err: fmt.Errorf("%d of %d log messages arrived within %s", n, opts.Count, opts.Conn.Timeout)}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CompleteOptions are the options of `mcp-tester complete`.
type CompleteOptions struct {
	ListOptions
	Prompt   string
	Template string
	Context  []string
}

func newCompleteCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &CompleteOptions{ListOptions: ListOptions{IO: ios}}
	cmd := &cobra.Command{
		Use:   "complete (--prompt NAME | --template URI) ARGUMENT [VALUE]",
		Short: "Ask the server to complete an argument of a prompt or resource template",
		Long: `Ask the server for completions (completion/complete) of one argument of a
prompt or of a resource template, given what has been typed so far. The
values are printed one a line. --context NAME=VALUE passes arguments
already chosen.`,
		Example: `  mcp-tester complete --prompt release-notes version 2.4 -c ./server
  mcp-tester complete --template 'customer://{id}' id c- -c ./server --format json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			value := ""
			if len(args) == 2 {
				value = args[1]
			}
			return runComplete(cmd.Context(), opts, args[0], value)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.Flags().StringVar(&opts.Prompt, "prompt", "", "the prompt whose argument to complete")
	cmd.Flags().StringVar(&opts.Template, "template", "", "the resource template whose variable to complete")
	cmd.Flags().StringArrayVar(&opts.Context, "context", nil, "NAME=VALUE of an argument already chosen (repeatable)")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runComplete(ctx context.Context, opts *CompleteOptions, arg, value string) error {
	ref := &mcp.CompleteReference{}
	switch {
	case opts.Prompt != "" && opts.Template != "":
		return usageErr("give --prompt or --template, not both")
	case opts.Prompt != "":
		ref.Type, ref.Name = "ref/prompt", opts.Prompt
	case opts.Template != "":
		ref.Type, ref.URI = "ref/resource", opts.Template
	default:
		return usageErr("say what to complete: --prompt NAME or --template URI")
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if len(opts.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: map[string]string{}}
		for _, kv := range opts.Context {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usageErr("--context %q: write NAME=VALUE", kv)
			}
			params.Context.Arguments[k] = v
		}
	}
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if serverCaps(s).Completions == nil {
		return &session.Error{Kind: session.KindServer, Op: "completion/complete", Err: errors.New("the server does not offer completions (its capabilities have no completions)")}
	}
	rctx, cancel := target.WithTimeout(ctx, opts.Conn.Timeout)
	defer cancel()
	res, err := s.SDK().Complete(rctx, params)
	if err != nil {
		return sdkErr(rctx, "completion/complete", err, opts.Conn.Timeout)
	}
	if opts.Format == "json" {
		return printer.JSON(opts.IO.Out, res.Completion)
	}
	values := res.Completion.Values
	for _, v := range values {
		fmt.Fprintln(opts.IO.Out, v)
	}
	if res.Completion.HasMore {
		fmt.Fprintf(opts.IO.ErrOut, "(the server has more than these %d values)\n", len(values))
	}
	return nil
}

// serverCaps returns the capabilities the server declared, never nil.
func serverCaps(s *session.Session) *mcp.ServerCapabilities {
	if r := s.SDK().InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	return &mcp.ServerCapabilities{}
}
