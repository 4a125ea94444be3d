package script

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Ext is the extension of script files, which a directory argument selects.
const Ext = ".mcp"

// MaxFileSize bounds a script file: a larger one is refused when it is
// loaded.
const MaxFileSize = 4 << 20

// ExpandPaths turns the arguments of `mcp-tester test` into script files:
// a file is taken as it is, a directory gives its *.mcp files (recursively,
// sorted), and a pattern with *, ? or [ is a glob. Duplicates are dropped;
// order follows the arguments. A pattern that matches nothing is an error.
func ExpandPaths(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		files, err := expandPath(a)
		if err != nil {
			return nil, err
		}
		for _, p := range files {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no script given: name .mcp files, a directory or a pattern")
	}
	return out, nil
}

// expandPath is the script files of one argument of ExpandPaths.
func expandPath(a string) ([]string, error) {
	if strings.ContainsAny(a, "*?[") {
		return globFiles(a)
	}
	fi, err := os.Stat(a)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", a, pathCause(err))
	}
	if !fi.IsDir() {
		return []string{a}, nil
	}
	return scriptsIn(a)
}

// globFiles are the files (not directories) pattern matches; a pattern
// that matches nothing is an error.
func globFiles(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("pattern %q matches no file", pattern)
	}
	var out []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
			out = append(out, m)
		}
	}
	return out, nil
}

// scriptsIn are the script files under dir, sorted; none is an error.
func scriptsIn(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, Ext) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("directory %s holds no %s file", dir, Ext)
	}
	slices.Sort(found)
	return found, nil
}

// LoadFiles reads and parses the scripts named by args (see ExpandPaths).
// Every file is parsed before any runs: the error joins the problems of all
// files (syntax errors as FILE:LINE:COL: message).
func LoadFiles(args []string) ([]*Script, error) {
	paths, err := ExpandPaths(args)
	if err != nil {
		return nil, err
	}
	var scripts []*Script
	var errs []error
	for _, p := range paths {
		src, err := readScript(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := ParseFile(p, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scripts = append(scripts, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return scripts, nil
}

func readScript(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", p, pathCause(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", p, err)
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("script %s: larger than %d bytes", p, MaxFileSize)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("script %s: %w", p, err)
	}
	return b, nil
}

// pathCause drops the path from a *fs.PathError, which the message names
// already.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
