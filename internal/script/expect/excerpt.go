package expect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxCheck bounds the length, in characters, of the text CheckText picks.
const maxCheck = 80

// CheckText is the part of a text a check that looks for text in it
// (assert_contains) keeps: its first non-empty line, cut to 80 characters
// at a space. Further lines are more likely to hold what changes from run
// to run.
func CheckText(text string) string {
	return Shorten(firstLine(text))
}

func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// Shorten cuts s to at most 80 characters, at a space when there is one in
// the second half, so that a check stays readable.
func Shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxCheck {
		return s
	}
	r := []rune(s)[:maxCheck]
	cut := len(r)
	for i := len(r) - 1; i > maxCheck/2; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(r[:cut]))
}
