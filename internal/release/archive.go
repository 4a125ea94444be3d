// Package release makes the pieces of a release that must come out the same
// byte for byte on every build of the same commit: tar.gz and zip archives
// (entries in one order, one modification time, owned by root, modes
// normalised), gzip files, the SHA-256 checksums file, and the Homebrew
// formula made from those checksums. scripts/release.sh drives it through
// internal/release/pack.
package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Entry is one file or directory of an archive.
type Entry struct {
	Name string      // slash-separated path inside the archive; a directory's ends in "/"
	Mode fs.FileMode // 0o755 for directories and executables, 0o644 for the rest
	Src  string      // the file on disk (empty for a directory)
}

// Collect lists dir's tree as archive entries under prefix (a folder the
// archive unpacks into), in lexical order with each directory before its
// contents. Modes are normalised: executable by anyone when the file is
// executable by its owner, else readable by anyone. Anything but regular
// files and directories (a symbolic link, a device) is refused.
func Collect(dir, prefix string) ([]Entry, error) {
	prefix = strings.Trim(prefix, "/")
	var entries []Entry
	if prefix != "" {
		entries = append(entries, Entry{Name: prefix + "/", Mode: 0o755})
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		name := path.Join(prefix, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			entries = append(entries, Entry{Name: name + "/", Mode: 0o755})
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := fs.FileMode(0o644)
			if info.Mode()&0o100 != 0 {
				mode = 0o755
			}
			entries = append(entries, Entry{Name: name, Mode: mode, Src: p})
		default:
			return fmt.Errorf("%s: a %s, not a regular file: an archive holds files and folders only", p, d.Type())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("collecting %s: %w", dir, err)
	}
	return entries, nil
}

// Compression is how an archive holds its files.
type Compression int

const (
	// Deflate compresses them at gzip's default level: what a release
	// ships. On the release's binaries level 9 made the archives 0.2 %
	// smaller for 3.6 times the work.
	Deflate Compression = iota
	// Store keeps them as they are, in a valid .tar.gz (gzip's stored
	// blocks) or .zip (method store) with the same entries, names, modes
	// and times. The release tests build the platforms whose archives they
	// only open and read so: compressing is most of an archive's cost, and
	// the platform they build again for reproducibility is deflated as a
	// release is. A release is never built so.
	Store
)

// WriteTarGz writes entries as a gzip-compressed tar: in the order given,
// every entry with mtime and owner 0:0 without names, and a gzip header
// without a name or a time.
func WriteTarGz(w io.Writer, entries []Entry, mtime time.Time, c Compression) error {
	level := gzip.DefaultCompression
	if c == Store {
		level = gzip.NoCompression
	}
	gz, err := gzip.NewWriterLevel(w, level)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.Name, Mode: int64(e.Mode.Perm()), ModTime: mtime.UTC().Truncate(time.Second)}
		if strings.HasSuffix(e.Name, "/") {
			hdr.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(hdr); err != nil {
				return fmt.Errorf("%s: %w", e.Name, err)
			}
			continue
		}
		hdr.Typeflag = tar.TypeReg
		if err := copyInto(e, func(size int64) (io.Writer, error) {
			hdr.Size = size
			return tw, tw.WriteHeader(hdr)
		}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// WriteZip writes entries as a zip archive (deflated at the default level,
// or stored): in the order given, every entry with mtime, and Unix modes.
func WriteZip(w io.Writer, entries []Entry, mtime time.Time, c Compression) error {
	method := zip.Deflate
	if c == Store {
		method = zip.Store
	}
	zw := zip.NewWriter(w)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.Name, Method: method, Modified: mtime.UTC().Truncate(time.Second)}
		if strings.HasSuffix(e.Name, "/") {
			hdr.Method = zip.Store
			hdr.SetMode(fs.ModeDir | e.Mode.Perm())
			if _, err := zw.CreateHeader(hdr); err != nil {
				return fmt.Errorf("%s: %w", e.Name, err)
			}
			continue
		}
		hdr.SetMode(e.Mode.Perm())
		if err := copyInto(e, func(int64) (io.Writer, error) { return zw.CreateHeader(hdr) }); err != nil {
			return err
		}
	}
	return zw.Close()
}

// copyInto copies e's file into the writer that open gives for its size,
// and checks that the size did not change meanwhile.
func copyInto(e Entry, open func(size int64) (io.Writer, error)) error {
	f, err := os.Open(e.Src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	w, err := open(info.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	if n != info.Size() {
		return fmt.Errorf("%s: %s changed while it was archived (%d bytes, then %d)", e.Name, e.Src, info.Size(), n)
	}
	return nil
}

// WriteGzip compresses r into w with a header that carries no name and no
// time, as gzip -n does.
func WriteGzip(w io.Writer, r io.Reader) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := io.Copy(gz, r); err != nil {
		return err
	}
	return gz.Close()
}
