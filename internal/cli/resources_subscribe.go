package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// ResourcesSubscribeOptions are the options of `mcp-tester resources
// subscribe`.
type ResourcesSubscribeOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	URI    string
	Count  int    // stop after this many updates; 0: no limit
	Format string // text or json (one line per update)
	// Limited is whether --timeout was given: only then does it end the
	// subscription.
	Limited bool
}

func newResourcesSubscribeCmd(ios *iostreams.IOStreams, runF func(context.Context, *ResourcesSubscribeOptions) error) *cobra.Command {
	opts := &ResourcesSubscribeOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "subscribe URI",
		Short: "Print a resource's updates until interrupted, --count or --timeout",
		Long: `Subscribe to a resource and print a line for each update the server sends.
It stops after --count updates, when --timeout (if given) has passed, or on
Ctrl-C, then unsubscribes. With protocol 2026-07-28 the subscription is a
subscriptions/listen stream; with older versions, resources/subscribe.

Exit codes: 0 it ended (with --count, after that many updates); 1 fewer than
--count came before --timeout; 130 interrupted (143 terminated: SIGTERM)
before --count updates came (without --count, Ctrl-C or SIGTERM is the way
to end: exit 0).`,
		Example: `  mcp-tester resources subscribe clock://now -c bin/manytools --count 3
  bin/manytools -http 127.0.0.1:8081 &
  mcp-tester resources subscribe clock://now -u http://127.0.0.1:8081/mcp --count 2 --timeout 1m --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URI = args[0]
			opts.Limited = cmd.Flags().Changed("timeout")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runResourcesSubscribe(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.ValidArgsFunction = completeFromServer(ios, &opts.Conn, "resources")
	cmd.Flags().IntVar(&opts.Count, "count", 0, "stop after this many updates (0: no limit)")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
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

func runResourcesSubscribe(ctx context.Context, opts *ResourcesSubscribeOptions) error {
	uri := opts.URI
	if opts.Count < 0 {
		return usageErr("--count must be 0 or more")
	}
	updates := opts.Conn.listen("notifications/resources/updated")
	s, err := opts.Conn.open(ctx, opts.IO, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	errc, err := s.Subscribe(ctx, uri)
	if err != nil {
		return err
	}
	var deadline <-chan time.Time
	if opts.Limited && opts.Conn.Timeout > 0 {
		t := time.NewTimer(opts.Conn.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	start := time.Now()
	n := 0
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = s.Unsubscribe(uctx, uri)
	}()
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.ErrOut, "Subscribed to %s; waiting for updates.\n", termsafe.Line(uri))
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
			if opts.Format == report.JSON {
				if err := printer.JSONLine(opts.IO.Out, map[string]any{"uri": got, "n": n, "t_ms": time.Since(start).Milliseconds()}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(opts.IO.Out, "updated %s\n", termsafe.Clip(got, maxShown))
			}
		case err := <-errc:
			if err != nil && ctx.Err() == nil {
				return err
			}
			errc = nil
		case <-deadline:
			return opts.short(n, fmt.Sprintf("before --timeout %s ran out", opts.Conn.Timeout))
		case <-ctx.Done():
			return opts.short(n, "before it was interrupted")
		}
	}
	return nil
}

// short is the outcome of a subscription that ended after n updates: a
// failure (exit 1) when --count asked for more.
func (opts *ResourcesSubscribeOptions) short(n int, when string) error {
	if opts.Count == 0 || n >= opts.Count {
		return nil
	}
	return &exitError{code: ExitFailed, err: fmt.Errorf("--count %d: %d update(s) of %s came %s", opts.Count, n, termsafe.Line(opts.URI), when)}
}
