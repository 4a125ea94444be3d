//go:build unix

package recording

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A symbolic link at the recording's path is not followed: the file it
// points to (another user's link in /tmp, to a file of the caller's) is
// left as it was. A FIFO is refused at once, without waiting for a reader.
func TestCreateRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	os.WriteFile(target, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "rec.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	_, f, err := Create(link, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	if err == nil {
		f.Close()
		t.Fatal("a recording was written through a symbolic link")
	}
	if !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("error %q does not say why", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target was changed: %q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Errorf("the link's target's mode was changed: %v", st.Mode().Perm())
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, f, err := Create(fifo, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a recording was written to a FIFO")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Create waits for a reader of a FIFO")
	}
}
