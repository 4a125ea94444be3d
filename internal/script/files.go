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
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, a := range args {
		if strings.ContainsAny(a, "*?[") {
			matches, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %w", a, err)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("pattern %q matches no file", a)
			}
			for _, m := range matches {
				if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
					add(m)
				}
			}
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("script %s: %w", a, pathCause(err))
		}
		if !fi.IsDir() {
			add(a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, Ext) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("directory %s: %w", a, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("directory %s holds no %s file", a, Ext)
		}
		slices.Sort(found)
		for _, f := range found {
			add(f)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no script given: name .mcp files, a directory or a pattern")
	}
	return out, nil
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
