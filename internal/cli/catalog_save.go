package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// CatalogSaveOptions are the options of `mcp-tester catalog save`.
type CatalogSaveOptions struct {
	IO     *iostreams.IOStreams
	Conn   ConnOptions
	Output string // the file to write; "" or "-": stdout
}

func newCatalogSaveCmd(ios *iostreams.IOStreams, runF func(context.Context, *CatalogSaveOptions) error) *cobra.Command {
	opts := &CatalogSaveOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "save",
		Short: "Write a server's catalog as one canonical JSON file",
		Long: `Save lists everything the server offers, every page of every list, and
writes it with what the server says about itself as one JSON file that diffs
well in git: keys sorted, tools and prompts by name, resources by URI, one
value a line, and nothing that changes from run to run (no times, no
resource sizes or dates, no _meta). Commit it next to the server's code and
let catalog diff compare the server against it in CI.

With -o FILE the file is replaced whole once the catalog is read (a server
that fails leaves the old file as it was); without, the catalog goes to
stdout. A list that fails fails the save (exit 1): a catalog with a list
missing would read as everything in it removed.`,
		Example: `  mcp-tester catalog save -c bin/deployer -o /tmp/catalog.json
  mcp-tester catalog save -c bin/manytools > /tmp/manytools.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCatalogSave(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the catalog to this file (default: stdout)")
	return cmd
}

func runCatalogSave(ctx context.Context, opts *CatalogSaveOptions) error {
	if opts.Output != "-" {
		if err := checkOutPath("-o", opts.Output); err != nil {
			return err
		}
	}
	c, _, err := fetchCatalog(ctx, opts.IO, &opts.Conn)
	if err != nil {
		return err
	}
	data, err := c.Bytes() // no line for every path: nothing here shows them
	if err != nil {
		return err
	}
	// A client could call only one of two items with one key, and the file
	// would be refused when read back (catalog diff, scan).
	if what, err := catalog.Repeated(data); err != nil {
		return err
	} else if what != "" {
		return &exitError{code: ExitFailed, err: fmt.Errorf("the server lists %s twice: a catalog cannot hold both (a client tells them apart by that key); nothing was saved", termsafe.Line(what))}
	}
	if opts.Output == "" || opts.Output == "-" {
		_, err := opts.IO.Out.Write(data)
		return err
	}
	if err := outfile.Write(opts.Output, data, 0o644); err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("-o: %w", err)}
	}
	fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: saved the catalog of %s (%d tools, %d prompts, %d resources, %d resource templates) to %s\n",
		termsafe.Line(serverLabel(c.Server.Name, c.Server.Version)), len(c.Tools), len(c.Prompts), len(c.Resources), len(c.Templates), opts.Output)
	return nil
}

// serverLabel is "name version", or the name alone.
func serverLabel(name, version string) string {
	if version == "" {
		return name
	}
	return name + " " + version
}
