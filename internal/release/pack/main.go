// Command pack makes the reproducible pieces of a release for
// scripts/release.sh:
//
//	pack docs -version V -epoch N DIR         man pages (DIR/man/man1) and shell completions (DIR/completions) of mcp-tester
//	pack archive -epoch N -prefix P -out F DIR  DIR as F (.tar.gz or .zip), unpacking into the folder P
//	                                            (-store: the files not compressed; the release tests' only)
//	pack gzip -out DIR FILE...                  each FILE as DIR/FILE.gz (no name, no time in the header)
//	pack checksums -out F FILE...               the SHA-256 checksums of the files, as sha256sum writes them
//	pack formula -version V -url BASE -checksums F -out F  the Homebrew formula of mcp-tester
//
// Times come from -epoch, the commit's time (SOURCE_DATE_EPOCH), so that
// two builds of one commit give the same bytes.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/release"
	"github.com/askback/askback/internal/release/manpage"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
}

// flags are the flags of every pack command; each reads those it needs.
type flags struct {
	version, prefix, out, base, sums string
	epoch                            int64
	store                            bool
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: pack docs|archive|gzip|checksums|formula [flags]")
	}
	fs := flag.NewFlagSet("pack "+args[0], flag.ContinueOnError)
	var f flags
	fs.StringVar(&f.version, "version", "", "the release version (v0.9.0)")
	fs.Int64Var(&f.epoch, "epoch", -1, "the time of every file, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	fs.StringVar(&f.prefix, "prefix", "", "the folder the archive unpacks into")
	fs.StringVar(&f.out, "out", "", "the file (or folder, for gzip) to write")
	fs.StringVar(&f.base, "url", "", "where the archives are downloaded from")
	fs.StringVar(&f.sums, "checksums", "", "the checksums file")
	fs.BoolVar(&f.store, "store", false, "archive: store the files without compressing them (for tests; a release compresses)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch args[0] {
	case "docs":
		return runDocs(f, fs.Args())
	case "archive":
		return runArchive(f, fs.Args())
	case "gzip":
		return runGzip(f, fs.Args())
	case "checksums":
		if f.out == "" || fs.NArg() == 0 {
			return fmt.Errorf("usage: pack checksums -out FILE FILE [FILE]")
		}
		return writeFile(f.out, func(b *bytes.Buffer) error { return release.WriteChecksums(b, fs.Args()) })
	case "formula":
		return runFormula(f, fs.Args())
	}
	return fmt.Errorf("unknown command %q: docs, archive, gzip, checksums or formula", args[0])
}

// mtime is the time of every file written: -epoch, which cmd requires.
func (f flags) mtime(cmd string) (time.Time, error) {
	if f.epoch < 0 {
		return time.Time{}, fmt.Errorf("%s: -epoch is required", cmd)
	}
	return time.Unix(f.epoch, 0).UTC(), nil
}

// runDocs is pack docs.
func runDocs(f flags, args []string) error {
	mtime, err := f.mtime("docs")
	if err != nil {
		return err
	}
	if len(args) != 1 || f.version == "" {
		return fmt.Errorf("usage: pack docs -version V -epoch N DIR")
	}
	return docs(args[0], f.version, mtime)
}

// runArchive is pack archive.
func runArchive(f flags, args []string) error {
	mtime, err := f.mtime("archive")
	if err != nil {
		return err
	}
	if len(args) != 1 || f.out == "" || f.prefix == "" {
		return fmt.Errorf("usage: pack archive -epoch N -prefix P -out FILE DIR")
	}
	c := release.Deflate
	if f.store {
		c = release.Store
	}
	return archive(args[0], f.prefix, f.out, mtime, c)
}

// runGzip is pack gzip.
func runGzip(f flags, args []string) error {
	if f.out == "" || len(args) == 0 {
		return fmt.Errorf("usage: pack gzip -out DIR FILE [FILE]")
	}
	for _, file := range args {
		if err := gzipFile(file, filepath.Join(f.out, filepath.Base(file)+".gz")); err != nil {
			return err
		}
	}
	return nil
}

// runFormula is pack formula.
func runFormula(f flags, args []string) error {
	if f.out == "" || f.version == "" || f.base == "" || f.sums == "" || len(args) != 0 {
		return fmt.Errorf("usage: pack formula -version V -url BASE -checksums FILE -out FILE")
	}
	in, err := os.Open(f.sums)
	if err != nil {
		return err
	}
	defer in.Close()
	checksums, err := release.ReadChecksums(in)
	if err != nil {
		return fmt.Errorf("%s: %w", f.sums, err)
	}
	return writeFile(f.out, func(b *bytes.Buffer) error {
		return release.Formula{Version: f.version, BaseURL: f.base, Checksums: checksums}.Write(b)
	})
}

// docs writes the man pages and the completion scripts of mcp-tester: the
// completions are what `mcp-tester completion SHELL` prints.
func docs(dir, version string, mtime time.Time) error {
	ios, _, _, _ := iostreams.Test()
	root := cli.NewRootCmd(ios)
	mandir := filepath.Join(dir, "man", "man1")
	if err := os.MkdirAll(mandir, 0o755); err != nil {
		return err
	}
	h := manpage.Header{
		Date:   mtime,
		Source: "mcp-tester " + version,
		Manual: "mcp-tester manual",
		RootSections: []manpage.Section{{Title: "Exit status", Body: `0 success; for test, every step passed.

1 the call failed (an error result, a JSON-RPC error, a server that broke the rules of asking, an unused --elicit answer, --strict); for test, a step failed; for audit, a rule failed or nothing was checked.

2 usage: bad flags, arguments, answers or script syntax; nothing was sent.

3 the server could not be reached, exited, did not answer in time, or the login to it failed.`}},
	}
	err := manpage.Tree(root, h, func(file string, page []byte) error {
		return os.WriteFile(filepath.Join(mandir, file), page, 0o644)
	})
	if err != nil {
		return err
	}
	compdir := filepath.Join(dir, "completions")
	if err := os.MkdirAll(compdir, 0o755); err != nil {
		return err
	}
	for shell, file := range map[string]string{"bash": "mcp-tester.bash", "zsh": "_mcp-tester", "fish": "mcp-tester.fish"} {
		var out, errOut bytes.Buffer
		ios := &iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		if code := cli.Main(context.Background(), ios, []string{"completion", shell}); code != 0 {
			return fmt.Errorf("mcp-tester completion %s: exit %d: %s", shell, code, errOut.String())
		}
		if err := os.WriteFile(filepath.Join(compdir, file), out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func archive(dir, prefix, out string, mtime time.Time, c release.Compression) error {
	entries, err := release.Collect(dir, prefix)
	if err != nil {
		return err
	}
	return writeFile(out, func(b *bytes.Buffer) error {
		switch {
		case strings.HasSuffix(out, ".tar.gz"):
			return release.WriteTarGz(b, entries, mtime, c)
		case strings.HasSuffix(out, ".zip"):
			return release.WriteZip(b, entries, mtime, c)
		}
		return fmt.Errorf("%s: an archive is .tar.gz or .zip", out)
	})
}

func gzipFile(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeFile(dst, func(b *bytes.Buffer) error { return release.WriteGzip(b, f) })
}

// writeFile writes what fill makes into path, whole or not at all.
func writeFile(path string, fill func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
