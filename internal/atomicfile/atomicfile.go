// Package atomicfile is the former home of what internal/outfile now
// offers: Write and WritePrivate forward to it.
//
// Deprecated: use internal/outfile.
package atomicfile

import (
	"io/fs"

	"github.com/askback/askback/internal/outfile"
)

// Write is outfile.Write.
//
// Deprecated: use outfile.Write.
func Write(path string, data []byte, perm fs.FileMode) error {
	return outfile.Write(path, data, perm)
}

// WritePrivate is outfile.WritePrivate.
//
// Deprecated: use outfile.WritePrivate.
func WritePrivate(path string, data []byte) error {
	return outfile.WritePrivate(path, data)
}
