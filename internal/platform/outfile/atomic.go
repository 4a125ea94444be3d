package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Write writes data to path whole or not at all, for a file the command
// writes once, at its end: the data goes to a new file next to it, which
// then takes its place, so that a reader (or a run that fails half-way)
// never sees part of it, and a file that was there stays as it was when
// the write fails. A file that is replaced keeps its
// permissions; a new one gets perm less the umask, as with os.WriteFile. A
// path that names a directory, a symbolic link (which would be replaced, and
// is no file of the caller's to replace) or a file that is no regular file
// (a device, a pipe) is an error, and nothing is written.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// WritePrivate writes data to path readable and writable by the user
// alone (mode 0600, whatever the umask and the mode of a file it
// replaces), making its directory (0700) first when there is none: for
// files that hold credentials. A directory that others may enter or write
// to (a 0777 one, say: another user could read the file, or replace it
// with theirs) is made the user's alone (0700) first; one that cannot be
// is an error, and nothing is written.
func WritePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fi, err := os.Lstat(dir)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	if err == nil && fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
		if err = os.Chmod(dir, 0o700); err != nil {
			err = fmt.Errorf("the directory %s is open to others (%v) and cannot be made the user's alone: %w", dir, fi.Mode().Perm(), err)
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return write(path, data, 0o600, true)
}

// write is Write; exact sets perm on the file whatever the umask, instead
// of keeping the mode of the file replaced.
func write(path string, data []byte, perm fs.FileMode, exact bool) error {
	var existing fs.FileInfo
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("write %s: %w", path, ErrLink)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		existing = fi
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := create(path, perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the name is the temporary file's, not the one asked for
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	mode := perm
	if existing != nil && !exact {
		mode = existing.Mode().Perm()
	}
	if existing != nil || exact {
		if err := tmp.Chmod(mode); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done = true
	return nil
}

// create makes a new file next to path, named after it, with perm (the
// umask applies).
func create(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	for try := 0; ; try++ {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b)+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 10 {
			continue
		}
		return f, err
	}
}
