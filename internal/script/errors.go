package script

import (
	"fmt"
	"strings"
)

// SyntaxError is a problem found while parsing a script, before anything
// runs. Its text is FILE:LINE:COL: message.
type SyntaxError struct {
	File string // the script's name as given to ParseFile
	Line int    // 1-based line
	Col  int    // 1-based column, in characters
	Msg  string // what is wrong and what to do
}

// Error returns FILE:LINE:COL: message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// SyntaxErrors is every syntax error of a script, in line order. ParseFile
// returns it as its error; use errors.As to reach the individual errors.
type SyntaxErrors []*SyntaxError

// Error returns the errors one per line.
func (es SyntaxErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// maxSyntaxErrors bounds how many errors one file reports.
const maxSyntaxErrors = 20

// closest returns the candidate nearest to word in edit distance, if it is
// near enough to be a plausible typo.
func closest(word string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		d := levenshtein(strings.ToLower(word), c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(best)/3)
	return best, bestD >= 0 && bestD <= limit
}

// levenshtein is the edit distance between a and b (bytes; inputs are
// bounded by the line length).
func levenshtein(a, b string) int {
	if len(a) > 64 {
		a = a[:64]
	}
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
