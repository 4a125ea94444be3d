package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// newCatalogCmd groups the commands about a server's catalog snapshot.
func newCatalogCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Save a server's catalog as a file, and diff it against a later one",
		Long: `A server's catalog is what it tells a client and the model: its name,
version, protocol, capabilities and instructions, and its tools, prompts,
resources and resource templates with their schemas, annotations and icons.
catalog save writes it as one canonical JSON file to commit next to the
server's code; catalog diff compares two (or a file and the live server) and
classifies every change as breaking for callers, to review (what the model
is told changed) or safe, and fails on the changes you choose.`,
		Example: `  mcp-tester catalog save -c bin/deployer -o /tmp/catalog.json
  mcp-tester catalog diff /tmp/catalog.json -c bin/deployer`,
	}
	cmd.AddCommand(newCatalogSaveCmd(ios, nil), newCatalogDiffCmd(ios, nil))
	return cmd
}

// fetchCatalog reads the catalog of the server conn reaches.
func fetchCatalog(ctx context.Context, ios *iostreams.IOStreams, conn *ConnOptions) (*catalog.Catalog, string, error) {
	s, err := conn.openToList(ctx, ios, nil)
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	c, err := catalog.Fetch(ctx, s)
	if err != nil {
		return nil, "", err
	}
	return c, s.Target().Describe(), nil
}

// readCatalogFile reads a catalog file, and whether it is in the form
// catalog save writes: then the lines of its paths can be shown
// (catalog.LinesOf); otherwise (with a note on stderr) they would point
// elsewhere.
func readCatalogFile(ios *iostreams.IOStreams, path string) (*catalog.Catalog, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, usageErr("%v", err)
	}
	defer f.Close()
	data, err := readBounded(f, catalog.MaxFileSize)
	if err != nil {
		return nil, false, usageErr("%s: %v", path, err)
	}
	c, err := catalog.ReadSaved(path, data)
	if err != nil {
		return nil, false, usageErr("%v", err)
	}
	same, err := c.Matches(data)
	if err != nil {
		return nil, false, err
	}
	if !same {
		fmt.Fprintf(ios.ErrOut, "mcp-tester: note: %s is not in the form catalog save writes: changes are shown by path, not by line (save it again to fix)\n", path)
		return c, false, nil
	}
	return c, true, nil
}

// readBounded reads f, refusing more than limit bytes. A file is read
// into a buffer of its size: grown as it is read, the buffer of a large
// file was copied a dozen times, and the last copy held up to a quarter
// more than the file.
func readBounded(f io.Reader, limit int64) ([]byte, error) {
	var b bytes.Buffer
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if info, err := st.Stat(); err == nil && info.Mode().IsRegular() && info.Size() <= limit {
			b.Grow(int(info.Size()) + bytes.MinRead) // MinRead: room to see the end without growing
		}
	}
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return b.Bytes(), nil
}
