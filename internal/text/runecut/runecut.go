// Package runecut cuts text to a number of bytes without cutting a
// character in two: the one loop every bounded excerpt, status and path
// shares. What a cut text ends with (an ellipsis, a count of the bytes left
// out) is the caller's.
package runecut

import "unicode/utf8"

// Prefix is the longest start of s of at most n bytes that ends where a
// rune starts: s itself when it is no longer than n.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(0, n)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Suffix is the longest end of s of at most n bytes that begins where a
// rune starts: s itself when it is no longer than n.
func Suffix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - max(0, n)
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[cut:]
}
