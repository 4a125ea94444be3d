package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// plant makes dir/name a symbolic link to a file of the caller's, and
// returns the link's path and the file's.
func plant(t *testing.T) (link, target string) {
	t.Helper()
	dir := t.TempDir()
	target = filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(dir, "out")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	return link, target
}

func TestEveryWayRefusesALink(t *testing.T) {
	for name, write := range map[string]func(string) error{
		"Write": func(p string) error { return Write(p, []byte("theirs\n"), 0o644) },
		"Create": func(p string) error {
			f, err := Create(p, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		},
		"Append": func(p string) error {
			f, err := Append(p, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		},
		"Check": Check,
	} {
		t.Run(name, func(t *testing.T) {
			link, target := plant(t)
			err := write(link)
			if name == "Write" {
				if err == nil {
					t.Fatal("a link was written through")
				}
			} else if !errors.Is(err, ErrLink) {
				t.Fatalf("err = %v, want ErrLink", err)
			}
			if got, _ := os.ReadFile(target); string(got) != "mine\n" {
				t.Errorf("the link's target became %q", got)
			}
		})
	}
}

func TestCreateEmptiesAFileAndAppendKeepsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("before\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := Append(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("more\n")
	f.Close()
	if got, _ := os.ReadFile(path); string(got) != "before\nmore\n" {
		t.Errorf("appended: %q", got)
	}
	f, err = Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	f.Close()
	got, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(got) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("created: %q %v", got, fi.Mode().Perm())
	}
}

func TestCheckLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "new.mcp")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if err := Check(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("a file in a missing folder can be appended to")
	}
}
