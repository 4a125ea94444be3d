// Package runecut cuts text to a number of bytes without cutting a
// character in two: the one loop every bounded excerpt, status and path
// shares. [Clip] is the one way a cut text says how much it left out.
package runecut

import (
	"strconv"
	"unicode/utf8"
)

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

// Clip is s when it is no longer than n bytes, else its Prefix of n bytes
// followed by how many bytes were left out: "… (N more bytes)".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := Prefix(s, n)
	return head + "… (" + strconv.Itoa(len(s)-len(head)) + " more bytes)"
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
