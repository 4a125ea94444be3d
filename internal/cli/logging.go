package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// logLevels are the levels of logging/setLevel, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LoggingOptions are the options of `mcp-tester logging`.
type LoggingOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Level  string
	Count  int    // wait for this many log messages
	Format string // text or json (one line per message)
}

func newLoggingCmd(ios *iostreams.IOStreams, runF func(context.Context, *LoggingOptions) error) *cobra.Command {
	opts := &LoggingOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "logging LEVEL",
		Short: "Set the server's logging level and print its log messages",
		Long: `Set the level of the log messages the server sends (logging/setLevel):
debug, info, notice, warning, error, critical, alert or emergency. With
--count N, wait for N messages (bounded by --timeout) and print them; a
server that does not offer logging sends none, and is not waited for.
Logging is deprecated as of protocol 2026-07-28 but still works.

Exit codes: 0 the level was set (and --count messages came); 1 fewer came
before --timeout, or the server offers no logging; 130 interrupted (143
terminated: SIGTERM) before they came.`,
		Example: `  mcp-tester logging warning -c bin/manytools
  mcp-tester logging debug -c bin/manytools --count 4 --timeout 30s`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: logLevels,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Level = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogging(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.Flags().IntVar(&opts.Count, "count", 0, "wait for this many log messages and print them")
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func runLogging(ctx context.Context, opts *LoggingOptions) error {
	level := opts.Level
	if !slices.Contains(logLevels, level) {
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
	//lint:ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it
	if opts.Count > 0 && s.ServerCapabilities().Logging == nil {
		// A server that declared no logging sends no log message: waiting
		// for --count of them would only wait out --timeout.
		return &exitError{code: ExitFailed, err: fmt.Errorf("--count %d: the server does not offer logging (its capabilities have no logging), so it sends no log message: none was waited for", opts.Count)}
	}
	if err := s.SetLogLevel(ctx, level); err != nil {
		return err
	}
	rctx, cancel := target.WithTimeout(ctx, opts.Conn.Timeout)
	defer cancel()
	if opts.Format != "json" {
		fmt.Fprintf(opts.IO.ErrOut, "Logging level set to %s.\n", level)
	}
	if opts.Format != "json" {
		if opts.Count > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "Waiting for %s (%s; Ctrl-C stops)…\n", nLogMessages(opts.Count), waitBound(opts.Conn.Timeout))
		}
	}
	for n := 0; n < opts.Count; n++ {
		select {
		case p := <-msgs:
			//lint:ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it
			m, _ := p.(*mcp.LoggingMessageParams)
			if m == nil {
				continue
			}
			if err := opts.print(m); err != nil {
				return err
			}
		case <-rctx.Done():
			if ctx.Err() != nil {
				// Interrupted before --count was met: a failure, which Main
				// words as the interrupt (exit 130), as every waiting command.
				return &exitError{code: ExitFailed, err: fmt.Errorf("--count %d: %s came before it was interrupted", opts.Count, nLogMessages(n))}
			}
			if n == 0 {
				return &exitError{code: ExitFailed, err: fmt.Errorf("--count %d: no log message came before --timeout %s ran out: the server sent none at level %s or above", opts.Count, opts.Conn.Timeout, level)}
			}
			return &exitError{code: ExitFailed, err: fmt.Errorf("--count %d: only %s came before --timeout %s ran out", opts.Count, nLogMessages(n), opts.Conn.Timeout)}
		}
	}
	return nil
}

// print writes a log message: a JSON line, or "[LEVEL] LOGGER: DATA".
//
//lint:ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it
func (opts *LoggingOptions) print(m *mcp.LoggingMessageParams) error {
	if opts.Format == report.JSON {
		return printer.JSONLine(opts.IO.Out, m)
	}
	data, _ := json.Marshal(m.Data)
	if s, ok := m.Data.(string); ok {
		data = []byte(s)
	}
	logger := ""
	if m.Logger != "" {
		logger = m.Logger + ": "
	}
	fmt.Fprintf(opts.IO.Out, "[%s] %s%s\n", termsafe.Clip(string(m.Level), maxShown), termsafe.Clip(logger, maxShown), termsafe.Clip(string(data), maxShown))
	return nil
}

// nLogMessages is "1 log message" or "N log messages".
func nLogMessages(n int) string {
	if n == 1 {
		return "1 log message"
	}
	return fmt.Sprintf("%d log messages", n)
}

// waitBound says how long a wait bounded by timeout lasts.
func waitBound(timeout time.Duration) string {
	if timeout <= 0 {
		return "no time limit"
	}
	return "at most --timeout " + timeout.String()
}
