// Package suggest finds the word a person most likely meant when the one
// written is not among those that exist: the nearest candidate in edit
// distance, when it is near enough to be a typo. The script language's
// commands and arguments, and the tools and arguments of call and audit,
// say "did you mean …?" with it.
package suggest

import "strings"

// maxLen bounds the part of a word that is compared: candidates may come
// from a server, and the cost of one comparison is the product of the two
// lengths.
const maxLen = 64

// Closest returns the candidate nearest to word (compared in lower case)
// in edit distance, and whether it is near enough to be a plausible typo:
// at most 2 edits, or a third of the candidate's length.
func Closest(word string, candidates []string) (string, bool) {
	best, bestD := "", -1
	w := strings.ToLower(cut(word))
	for _, c := range candidates {
		d := levenshtein(w, cut(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(best)/3)
	return best, bestD >= 0 && bestD <= limit
}

func cut(s string) string {
	if len(s) > maxLen {
		return s[:maxLen]
	}
	return s
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
