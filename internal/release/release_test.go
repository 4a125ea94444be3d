package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var epoch = time.Unix(1764583200, 0).UTC() // 2025-12-01T10:00:00Z

// tree makes a folder with a binary, a text file and a subfolder, with
// times and modes that differ from what an archive must hold.
func tree(t *testing.T, umask bool) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, mode os.FileMode, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, time.Now(), time.Now().Add(-time.Duration(len(body))*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	mode := os.FileMode(0o755)
	text := os.FileMode(0o644)
	if umask {
		mode, text = 0o700, 0o600
	}
	write("mcp-tester", mode, "#!binary")
	write("completions/_mcp-tester", text, "#compdef mcp-tester\n")
	write("man/man1/mcp-tester.1", text, ".TH MCP-TESTER 1\n")
	return dir
}

func pack(t *testing.T, dir string, zipped bool, c Compression) []byte {
	t.Helper()
	entries, err := Collect(dir, "mcp-tester_0.9.0_linux_amd64")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if zipped {
		err = WriteZip(&b, entries, epoch, c)
	} else {
		err = WriteTarGz(&b, entries, epoch, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Two folders with the same files, made at other times with another umask,
// give the same archive bytes; the archive holds every entry in order, at
// the commit's time, owned by root, executable or not as the file was, with
// the file's bytes. A stored archive (the release tests') holds the same as
// a deflated one (a release's).
func TestArchivesAreReproducible(t *testing.T) {
	for _, tc := range []struct {
		zipped bool
		c      Compression
	}{{false, Deflate}, {true, Deflate}, {false, Store}, {true, Store}} {
		zipped := tc.zipped
		a, b := pack(t, tree(t, false), zipped, tc.c), pack(t, tree(t, true), zipped, tc.c)
		if !bytes.Equal(a, b) {
			t.Fatalf("zip=%v compression=%d: two archives of the same files differ", zipped, tc.c)
		}
		type entry struct {
			name string
			mode int64
			mod  time.Time
		}
		var got []entry
		var binary []byte
		if zipped {
			zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				got = append(got, entry{f.Name, int64(f.Mode().Perm()), f.Modified.UTC()})
				if strings.HasSuffix(f.Name, "/mcp-tester") {
					rc, err := f.Open()
					if err != nil {
						t.Fatal(err)
					}
					binary, _ = io.ReadAll(rc)
					rc.Close()
				}
			}
		} else {
			gz, err := gzip.NewReader(bytes.NewReader(a))
			if err != nil {
				t.Fatal(err)
			}
			if gz.Name != "" || !gz.ModTime.IsZero() {
				t.Errorf("gzip header has name %q, time %v", gz.Name, gz.ModTime)
			}
			tr := tar.NewReader(gz)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
					t.Errorf("%s owned by %d:%d (%q:%q)", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
				}
				got = append(got, entry{h.Name, h.Mode, h.ModTime.UTC()})
				if strings.HasSuffix(h.Name, "/mcp-tester") {
					binary, _ = io.ReadAll(tr)
				}
			}
		}
		p := "mcp-tester_0.9.0_linux_amd64/"
		want := []entry{
			{p, 0o755, epoch},
			{p + "completions/", 0o755, epoch},
			{p + "completions/_mcp-tester", 0o644, epoch},
			{p + "man/", 0o755, epoch},
			{p + "man/man1/", 0o755, epoch},
			{p + "man/man1/mcp-tester.1", 0o644, epoch},
			{p + "mcp-tester", 0o755, epoch},
		}
		if len(got) != len(want) {
			t.Fatalf("zip=%v: entries %v, want %v", zipped, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("zip=%v: entry %d = %v, want %v", zipped, i, got[i], want[i])
			}
		}
		if string(binary) != "#!binary" {
			t.Errorf("zip=%v compression=%d: mcp-tester holds %q", zipped, tc.c, binary)
		}
	}
}

// A symbolic link is refused: an archive that unpacks outside its folder is
// never made.
func TestCollectRefusesLinks(t *testing.T) {
	dir := tree(t, false)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")); err != nil {
		t.Fatal(err)
	}
	_, err := Collect(dir, "x")
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
}

func TestChecksumsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "b.tar.gz"), filepath.Join(dir, "a.zip")
	os.WriteFile(a, []byte("hello\n"), 0o644)
	os.WriteFile(b, nil, 0o644)
	var out bytes.Buffer
	if err := WriteChecksums(&out, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	want := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.zip\n" +
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  b.tar.gz\n"
	if out.String() != want {
		t.Fatalf("checksums:\n%s\nwant (as sha256sum writes them):\n%s", out.String(), want)
	}
	sums, err := ReadChecksums(strings.NewReader(want))
	if err != nil || sums["a.zip"] != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("read back: %v, %v", sums, err)
	}
	for _, bad := range []string{
		"",
		"e3b0  a.zip\n",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 a.zip\n",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  ../a.zip\n",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.zip\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.zip\n",
	} {
		if _, err := ReadChecksums(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadChecksums(%q) took it", bad)
		}
	}
}

func formulaSums() map[string]string {
	sums := map[string]string{}
	for i, p := range FormulaPlatforms {
		sums[ArchiveName("mcp-tester", "v0.9.0", p)] = strings.Repeat(string(rune('a'+i)), 64)
	}
	return sums
}

// The formula names each platform's archive with its checksum.
func TestFormula(t *testing.T) {
	var b bytes.Buffer
	err := Formula{Version: "v0.9.0", BaseURL: "https://github.com/askback/askback/releases/download/v0.9.0/", Checksums: formulaSums()}.Write(&b)
	if err != nil {
		t.Fatal(err)
	}
	f := b.String()
	for _, want := range []string{
		`version "0.9.0"`,
		`url "https://github.com/askback/askback/releases/download/v0.9.0/mcp-tester_0.9.0_darwin_arm64.tar.gz"` + "\n      sha256 \"" + strings.Repeat("a", 64) + `"`,
		`url "https://github.com/askback/askback/releases/download/v0.9.0/mcp-tester_0.9.0_linux_amd64.tar.gz"` + "\n      sha256 \"" + strings.Repeat("d", 64) + `"`,
		`man1.install Dir["man/man1/*.1"]`,
	} {
		if !strings.Contains(f, want) {
			t.Errorf("formula lacks %q:\n%s", want, f)
		}
	}
}

// What would make a broken or hostile formula is refused.
func TestFormulaRefuses(t *testing.T) {
	missing := formulaSums()
	delete(missing, "mcp-tester_0.9.0_linux_arm64.tar.gz")
	for name, f := range map[string]Formula{
		"missing archive": {Version: "v0.9.0", BaseURL: "https://example.test/d", Checksums: missing},
		"not semver":      {Version: "0.9.0", BaseURL: "https://example.test/d", Checksums: formulaSums()},
		"ruby in the URL": {Version: "v0.9.0", BaseURL: `https://example.test/#{system("id")}`, Checksums: formulaSums()},
		"quote":           {Version: "v0.9.0", BaseURL: `https://example.test/"`, Checksums: formulaSums()},
		"plain http":      {Version: "v0.9.0", BaseURL: "http://example.test/d", Checksums: formulaSums()},
	} {
		if err := f.Write(io.Discard); err == nil {
			t.Errorf("%s: written", name)
		}
	}
}
