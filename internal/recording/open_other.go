//go:build !unix

package recording

// openNoFollow is nothing where the system has no such flags; Create still
// refuses what is not a regular file once it is open.
const openNoFollow = 0
