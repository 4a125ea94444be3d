package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// ListOptions are the options of the list commands: tools list, prompts
// list, resources list and resources templates.
type ListOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Format string // text or json
	// Cursor is the page to start at; All follows every page after it.
	Cursor string
	All    bool
	// Samples (--sample) and Conn.Roots (--root) declare sampling and
	// roots, so that a server that offers some of what it has only to a
	// client that declares them lists it; the replies answer a server that
	// asks meanwhile.
	Samples []string
}

// open opens the session of a list command: sampling and roots declared
// when --sample or --root were given.
func (o *ListOptions) open(ctx context.Context) (*session.Session, error) {
	ans, err := declaring(o.Samples)
	if err != nil {
		return nil, err
	}
	return o.Conn.openToList(ctx, o.IO, ans)
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
	addDeclareFlags(cmd, &opts.Conn, &opts.Samples)
	addPageFlags(cmd, opts)
	addFormatFlag(cmd, &opts.Format, new(bool))
	return cmd
}

// addPageFlags adds --cursor and --all.
func addPageFlags(cmd *cobra.Command, opts *ListOptions) {
	cmd.Flags().StringVarP(&opts.Cursor, "cursor", "C", "", "start at this page (the cursor a previous listing printed)")
	cmd.Flags().BoolVar(&opts.All, "all", false, fmt.Sprintf("follow every page (at most %d)", session.MaxPages))
}

// pages says which pages the flags ask for.
func (o *ListOptions) pages() session.Pages {
	return session.Pages{Cursor: o.Cursor, All: o.All}
}

// listPages opens the session of a list command, lists the pages opts ask
// for with list (a session's ListTools, ListPrompts, …) and prints them:
// table writes the rows of the text listing; the JSON lists each item as
// the server sent it, every member (keyOf is the item's key in its list:
// session.AsSent). It returns what it listed.
func listPages[T any](ctx context.Context, opts *ListOptions, key string, list func(*session.Session, context.Context, session.Pages) ([]T, string, error), keyOf func(T) string, table func(io.Writer, []T)) ([]T, error) {
	s, err := opts.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	items, next, err := list(s, ctx, opts.pages())
	if err != nil {
		return nil, err
	}
	var shown any = nonNil(items)
	if opts.Format == report.JSON {
		method := listMethods[key]
		out := make([]any, 0, len(items))
		for _, it := range items {
			out = append(out, s.AsSent(method, keyOf(it), it))
		}
		shown = out
	}
	return items, listed(opts, key, shown, len(items), next, func(w io.Writer) { table(w, items) })
}

// listMethods are the list methods, by the member of their result that
// holds the items.
var listMethods = map[string]string{
	"tools": "tools/list", "prompts": "prompts/list",
	"resources": "resources/list", "resourceTemplates": "resources/templates/list",
}

// listed prints a listing: JSON as the server's list result, or a table
// and, when there are more pages, how to get them.
func listed(opts *ListOptions, key string, items any, n int, next string, table func(w io.Writer)) error {
	if opts.Format == report.JSON {
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
		fmt.Fprintf(opts.IO.ErrOut, "More %s: add --cursor %s for the next page, or --all for every page.\n", noun(key), shellWord(termsafe.Line(next)))
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
	s = strings.Join(strings.Fields(termsafe.Line(s)), " ")
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
