// Package outfile is how the tester writes every file a person names on
// its command line (reports, traces, badges, scripts, recordings, saved
// icons): a symbolic link at the path is refused, not followed (in a
// shared folder such as /tmp, another user's link would have the tester
// overwrite or append to a file of the caller's elsewhere), and so is
// anything but a regular file (a FIFO or a device is refused without
// waiting for a reader). A file written whole is written whole or not at
// all (Write; WritePrivate for credentials); a file written as the command
// goes is created new, or emptied once it is known to be a regular file
// (Create), or appended to (Append).
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrLink is the error of a path that names a symbolic link.
var ErrLink = errors.New("is a symbolic link; give the path of a regular file")

// Create opens path for writing from its start: a new file with perm
// (less the umask), or a regular file that was there, emptied and given
// perm. A symbolic link or anything but a regular file at path is an
// error, and nothing is changed.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	f, err := open(path, os.O_WRONLY|os.O_CREATE, perm)
	if err != nil {
		return nil, err
	}
	// An existing file keeps its mode when opened.
	err = f.Chmod(perm)
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}

// Append opens path for appending: a new file with perm (less the umask),
// or the regular file that is there, as it is. A symbolic link or
// anything but a regular file at path is an error.
func Append(path string, perm fs.FileMode) (*os.File, error) {
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, perm)
}

// Check reports whether path could be appended to (Append), leaving no
// file behind that was not there: what a command checks before it starts
// work whose result it will append.
func Check(path string) error {
	_, statErr := os.Lstat(path)
	f, err := Append(path, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		return os.Remove(path)
	}
	return nil
}

// open opens path with flag, refusing a symbolic link (not followed where
// the system can say so, and looked for first everywhere) and anything
// that is no regular file once open.
func open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if isLink(path) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrLink}
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		if isLink(path) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrLink}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}

func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}
