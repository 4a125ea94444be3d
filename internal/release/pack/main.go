// Command pack makes the reproducible pieces of a release for
// scripts/release.sh:
//
//	pack docs -version V -epoch N DIR         man pages (DIR/man/man1) and shell completions (DIR/completions) of mcp-tester
//	pack archive -epoch N -prefix P -out F DIR  DIR as F (.tar.gz or .zip), unpacking into the folder P
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

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: pack docs|archive|gzip|checksums|formula [flags]")
	}
	fs := flag.NewFlagSet("pack "+args[0], flag.ContinueOnError)
	version := fs.String("version", "", "the release version (v0.9.0)")
	epoch := fs.Int64("epoch", -1, "the time of every file, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	prefix := fs.String("prefix", "", "the folder the archive unpacks into")
	out := fs.String("out", "", "the file (or folder, for gzip) to write")
	base := fs.String("url", "", "where the archives are downloaded from")
	sums := fs.String("checksums", "", "the checksums file")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	mtime := time.Unix(*epoch, 0).UTC()
	needEpoch := func() error {
		if *epoch < 0 {
			return fmt.Errorf("%s: -epoch is required", args[0])
		}
		return nil
	}
	switch args[0] {
	case "docs":
		if err := needEpoch(); err != nil {
			return err
		}
		if fs.NArg() != 1 || *version == "" {
			return fmt.Errorf("usage: pack docs -version V -epoch N DIR")
		}
		return docs(fs.Arg(0), *version, mtime)
	case "archive":
		if err := needEpoch(); err != nil {
			return err
		}
		if fs.NArg() != 1 || *out == "" || *prefix == "" {
			return fmt.Errorf("usage: pack archive -epoch N -prefix P -out FILE DIR")
		}
		return archive(fs.Arg(0), *prefix, *out, mtime)
	case "gzip":
		if *out == "" || fs.NArg() == 0 {
			return fmt.Errorf("usage: pack gzip -out DIR FILE [FILE]")
		}
		for _, f := range fs.Args() {
			if err := gzipFile(f, filepath.Join(*out, filepath.Base(f)+".gz")); err != nil {
				return err
			}
		}
		return nil
	case "checksums":
		if *out == "" || fs.NArg() == 0 {
			return fmt.Errorf("usage: pack checksums -out FILE FILE [FILE]")
		}
		return writeFile(*out, func(b *bytes.Buffer) error { return release.WriteChecksums(b, fs.Args()) })
	case "formula":
		if *out == "" || *version == "" || *base == "" || *sums == "" || fs.NArg() != 0 {
			return fmt.Errorf("usage: pack formula -version V -url BASE -checksums FILE -out FILE")
		}
		f, err := os.Open(*sums)
		if err != nil {
			return err
		}
		defer f.Close()
		checksums, err := release.ReadChecksums(f)
		if err != nil {
			return fmt.Errorf("%s: %w", *sums, err)
		}
		return writeFile(*out, func(b *bytes.Buffer) error {
			return release.Formula{Version: *version, BaseURL: *base, Checksums: checksums}.Write(b)
		})
	}
	return fmt.Errorf("unknown command %q: docs, archive, gzip, checksums or formula", args[0])
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

func archive(dir, prefix, out string, mtime time.Time) error {
	entries, err := release.Collect(dir, prefix)
	if err != nil {
		return err
	}
	return writeFile(out, func(b *bytes.Buffer) error {
		switch {
		case strings.HasSuffix(out, ".tar.gz"):
			return release.WriteTarGz(b, entries, mtime)
		case strings.HasSuffix(out, ".zip"):
			return release.WriteZip(b, entries, mtime)
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
