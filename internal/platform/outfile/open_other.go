//go:build !unix

package outfile

// noFollow is nothing where the system has no such flags; the path is
// looked at before it is opened, and what is open checked.
const noFollow = 0
