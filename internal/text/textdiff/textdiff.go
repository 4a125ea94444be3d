// Package textdiff writes the difference of two texts as a unified diff
// (the format of diff -u and git diff): what a failed check shows between
// what was expected and what came, and what `mcp-tester test --update`
// shows of the lines it rewrote.
package textdiff

import (
	"fmt"
	"slices"
	"strings"
)

// maxEdits bounds the work of finding the shortest difference: beyond it
// the lines that differ (between the common beginning and end) are shown
// as removed and added whole, which is correct but longer.
const maxEdits = 1000

// Unified returns the unified diff of a and b with context lines around
// each change, headed by --- aName and +++ bName; "" when the texts are
// equal. A text that does not end in a newline is marked as diff marks it.
func Unified(aName, bName, a, b string, context int) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for _, h := range hunks(ops, context) {
		writeHunk(&out, h, x, y)
	}
	return out.String()
}

// splitLines splits s after each newline; a last line without one is
// marked so that it differs from the same line with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

// op is one line of the diff: kept (in both), removed (from a) or added
// (from b), with its index in a and b.
type op struct {
	kind byte // ' ', '-', '+'
	i, j int  // line of a (kept, removed) and of b (kept, added)
}

// diffLines returns the edit script from x to y: the common beginning and
// end, and between them the shortest script (Myers' algorithm) within
// maxEdits.
func diffLines(x, y []string) []op {
	pre := commonPrefix(x, y)
	suf := commonSuffix(x[pre:], y[pre:])
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i, i})
	}
	mid := myers(x[pre:len(x)-suf], y[pre:len(y)-suf])
	if mid == nil {
		mid = replaceAll(len(x)-pre-suf, len(y)-pre-suf)
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.i + pre, o.j + pre})
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, op{' ', len(x) - suf + k, len(y) - suf + k})
	}
	return ops
}

// commonPrefix returns how many lines x and y begin with alike.
func commonPrefix(x, y []string) int {
	n := 0
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

// commonSuffix returns how many lines x and y end with alike.
func commonSuffix(x, y []string) int {
	n := 0
	for n < len(x) && n < len(y) && x[len(x)-1-n] == y[len(y)-1-n] {
		n++
	}
	return n
}

// replaceAll is the script that removes all n lines of x and adds all m
// lines of y: what diffLines shows when myers gives up.
func replaceAll(n, m int) []op {
	var ops []op
	for i := 0; i < n; i++ {
		ops = append(ops, op{'-', i, 0})
	}
	for j := 0; j < m; j++ {
		ops = append(ops, op{'+', 0, j})
	}
	return ops
}

// cameDown reports whether the furthest path to diagonal k in round d
// comes down from diagonal k+1 (a line of y added) rather than right from
// k-1 (a line of x removed). prev holds how far x reached on each diagonal
// after round d-1, diagonal k at prev[off+k].
func cameDown(prev []int, off, k, d int) bool {
	return k == -d || (k != d && prev[off+k-1] < prev[off+k+1])
}

// slide follows the common lines of x and y from (i, j) and returns where
// they end.
func slide(x, y []string, i, j int) (int, int) {
	for i < len(x) && j < len(y) && x[i] == y[j] {
		i, j = i+1, j+1
	}
	return i, j
}

// myers returns the shortest edit script from x to y, or nil when it
// takes more than maxEdits edits (and x and y are not both empty).
func myers(x, y []string) []op {
	n, m := len(x), len(y)
	if n == 0 && m == 0 {
		return []op{}
	}
	limit := min(n+m, maxEdits)
	// v[k] is the furthest x reached on diagonal k (x-y = k); trace keeps
	// v after each round d, for the way back.
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var i int
			if cameDown(v, off, k, d) {
				i = v[off+k+1] // down: an added line
			} else {
				i = v[off+k-1] + 1 // right: a removed line
			}
			i, j := slide(x, y, i, i-k)
			v[off+k] = i
			if i >= n && j >= m {
				trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
				return backtrack(trace, n, m)
			}
		}
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
	}
	return nil
}

// backtrack walks the trace of myers back from (n, m) to (0, 0).
func backtrack(trace [][]int, n, m int) []op {
	// at is v[k] after round d: trace[d] holds v[-d-1 … d+1].
	at := func(d, k int) int { return trace[d][k+d+1] }
	var rev []op
	i, j := n, m
	for d := len(trace) - 1; d > 0; d-- {
		k := i - j
		pk := k - 1                           // came right: a line of x removed
		down := cameDown(trace[d-1], d, k, d) // diagonal k at k+d, as at says
		if down {
			pk = k + 1 // came down: a line of y added
		}
		pi := at(d-1, pk)
		pj := pi - pk
		edit := op{'-', pi, pj}
		ei, ej := pi+1, pj // where the edit led, before the common run
		if down {
			edit.kind, ei, ej = '+', pi, pj+1
		}
		rev = keptBack(rev, i, j, ei, ej)
		rev = append(rev, edit)
		i, j = pi, pj
	}
	rev = keptBack(rev, i, j, 0, 0)
	slices.Reverse(rev)
	return rev
}

// keptBack appends to rev, last first, the common lines that lead from
// (ei, ej) to (i, j) on one diagonal.
func keptBack(rev []op, i, j, ei, ej int) []op {
	for i > ei && j > ej {
		i, j = i-1, j-1
		rev = append(rev, op{' ', i, j})
	}
	return rev
}

// hunk is a run of ops with their context.
type hunk []op

func hunks(ops []op, context int) []hunk {
	var out []hunk
	var cur hunk
	lastChange := -1
	for idx, o := range ops {
		if o.kind == ' ' {
			continue
		}
		from := max(idx-context, 0)
		if lastChange >= 0 && from <= lastChange+context+1 {
			// Within reach of the hunk being built: extend it.
			cur = append(cur, ops[lastChange+1:idx+1]...)
		} else {
			if cur != nil {
				out = append(out, append(cur, ops[lastChange+1:min(lastChange+1+context, len(ops))]...))
			}
			cur = append(hunk(nil), ops[from:idx+1]...)
		}
		lastChange = idx
	}
	if cur != nil {
		out = append(out, append(cur, ops[lastChange+1:min(lastChange+1+context, len(ops))]...))
	}
	return out
}

// writeHunk writes h as a unified diff's hunk: its ranges, then its lines.
func writeHunk(out *strings.Builder, h hunk, x, y []string) {
	aStart, aLen, bStart, bLen := h.ranges()
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rangeOf(aStart, aLen), rangeOf(bStart, bLen))
	for _, o := range h {
		line := ""
		switch o.kind {
		case ' ', '-':
			line = x[o.i]
		case '+':
			line = y[o.j]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
	}
}

// ranges returns where h starts in a and in b, and how many lines it spans
// in each.
func (h hunk) ranges() (aStart, aLen, bStart, bLen int) {
	aStart, bStart = -1, -1
	for _, o := range h {
		switch o.kind {
		case ' ':
			aLen++
			bLen++
		case '-':
			aLen++
		case '+':
			bLen++
		}
		if aStart < 0 && o.kind != '+' {
			aStart = o.i
		}
		if bStart < 0 && o.kind != '-' {
			bStart = o.j
		}
	}
	if aStart < 0 {
		aStart = h[0].i
	}
	if bStart < 0 {
		bStart = h[0].j
	}
	return aStart, aLen, bStart, bLen
}

// rangeOf writes a hunk's range as diff does: start,length with the start
// 1-based, or the line before an empty range.
func rangeOf(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
