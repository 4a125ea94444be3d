//go:build unix

package outfile

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestCreateRefusesAFIFOWithoutWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	if f, err := Create(path, 0o644); err == nil {
		f.Close()
		t.Fatal("a FIFO was opened")
	}
}
