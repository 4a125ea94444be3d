// Package optname words a package's options in its caller's terms.
//
// A package below the command line points at the caller's choices in its
// errors and hints ("give a client id"), but the caller decides how a
// choice is spelled: a command line says --client-id, a Go program
// Settings.ClientID. The package declares its options as a type with a
// String method (its own, Go API terms) and takes a [Namer] from its
// caller.
package optname

import "fmt"

// Namer words an option of type O as the caller names it (a command
// line's flag). A nil Namer, or "" for an option, leaves the option's own
// name, its String method's.
type Namer[O fmt.Stringer] func(O) string

// Word returns o as the caller named it, else o.String().
func (n Namer[O]) Word(o O) string {
	if n != nil {
		if s := n(o); s != "" {
			return s
		}
	}
	return o.String()
}
