package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/internal/session"
	"github.com/askback/askback/internal/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// maxPages bounds --all: a server whose cursors never end is stopped.
const maxPages = 1000

// ListOptions are the options of the list commands: tools list, prompts
// list, resources list and resources templates.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Format string // text or json
	// Cursor is the page to start at; All follows every page after it.
	Cursor string
	All    bool
}

// newListCmd builds a list command that binds the list flags to a fresh
// ListOptions and hands them to runF, or to run when runF is nil.
func newListCmd(ios *iostreams.IOStreams, cmd *cobra.Command, run, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: ios}
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return run(cmd.Context(), opts)
	}
	addConnFlags(cmd, &opts.Conn)
	addPageFlags(cmd, opts)
	addFormatFlag(cmd, &opts.Format, new(bool))
	return cmd
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
