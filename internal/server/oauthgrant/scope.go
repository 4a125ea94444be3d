package oauthgrant

import (
	"fmt"
	"slices"
	"strings"
)

// ScopeError is a requested scope an authorization server refuses: OAuth's
// invalid_scope (RFC 6749 §4.1.2.1, §5.2). Its text names the scope and
// why.
type ScopeError struct{ Why string }

func (e *ScopeError) Error() string { return e.Why }

// Rule is what a server grants: the scopes it knows, in the order it names
// them, and one it never grants (withheld: dropped from what is asked, as a
// server may grant less than asked, RFC 6749 §3.3).
type Rule struct {
	Known    []string
	Withheld string
}

// Scope returns the scope to grant for the space-separated scope asked:
// each scope once, in the order of r.Known, without the withheld one. A
// scope the server does not know, or one outside within (the scope a
// request may have, e.g. what the user consented to; nil: any it knows)
// refuses the whole request with a *ScopeError saying which; withinWhat
// names within in that error ("the grant", "the client's registration").
// An empty asked gives "".
func (r Rule) Scope(asked string, within []string, withinWhat string) (string, error) {
	fields := strings.Fields(asked)
	for _, sc := range fields {
		if !slices.Contains(r.Known, sc) {
			return "", &ScopeError{Why: fmt.Sprintf("the scope %q is not one this server grants (%s)", sc, strings.Join(r.Known, ", "))}
		}
		if within != nil && !slices.Contains(within, sc) {
			return "", &ScopeError{Why: fmt.Sprintf("the scope %q is outside %s (%s)", sc, withinWhat, strings.Join(within, " "))}
		}
	}
	var out []string
	for _, sc := range r.Known {
		if sc != r.Withheld && slices.Contains(fields, sc) {
			out = append(out, sc)
		}
	}
	return strings.Join(out, " "), nil
}

// Within reports whether every scope of the space-separated scope is in
// the space-separated scope of.
func Within(scope, of string) bool {
	have := strings.Fields(of)
	for _, sc := range strings.Fields(scope) {
		if !slices.Contains(have, sc) {
			return false
		}
	}
	return true
}
