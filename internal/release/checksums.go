package release

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// WriteChecksums writes the SHA-256 of each file as sha256sum prints it
// ("HEX  NAME", NAME the file's base name), sorted by name, so that
// `sha256sum -c` checks a download.
func WriteChecksums(w io.Writer, files []string) error {
	type line struct{ name, sum string }
	var lines []line
	seen := map[string]bool{}
	for _, p := range files {
		name := filepath.Base(p)
		if seen[name] {
			return fmt.Errorf("checksums: two files named %s", name)
		}
		seen[name] = true
		sum, err := fileSHA256(p)
		if err != nil {
			return fmt.Errorf("checksums: %w", err)
		}
		lines = append(lines, line{name, sum})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].name < lines[j].name })
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		fmt.Fprintf(bw, "%s  %s\n", l.sum, l.name)
	}
	return bw.Flush()
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var checksumLine = regexp.MustCompile(`^([0-9a-f]{64})  ([A-Za-z0-9._+~-]+)$`)

// ReadChecksums reads a checksums file as WriteChecksums writes it: one
// "HEX  NAME" a line, each name once; anything else is an error that names
// the line.
func ReadChecksums(r io.Reader) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		m := checksumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("checksums line %d: %q is not \"SHA256  NAME\"", n, truncate(sc.Text(), 100))
		}
		if _, dup := sums[m[2]]; dup {
			return nil, fmt.Errorf("checksums line %d: %s is listed twice", n, m[2])
		}
		sums[m[2]] = m[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("checksums: %w", err)
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("checksums: no file listed")
	}
	return sums, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
