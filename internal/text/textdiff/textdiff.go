// Package textdiff writes the difference of two texts as a unified diff
// (the format of diff -u and git diff): what a failed check shows between
// what was expected and what came, and what `mcp-tester test --update`
// shows of the lines it rewrote.
package textdiff

import (
	"fmt"
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
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i, i})
	}
	mid := myers(x[pre:len(x)-suf], y[pre:len(y)-suf])
	if mid == nil {
		for i := pre; i < len(x)-suf; i++ {
			mid = append(mid, op{'-', i - pre, 0})
		}
		for j := pre; j < len(y)-suf; j++ {
			mid = append(mid, op{'+', 0, j - pre})
		}
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.i + pre, o.j + pre})
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, op{' ', len(x) - suf + k, len(y) - suf + k})
	}
	return ops
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
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1] // down: an added line
			} else {
				i = v[off+k-1] + 1 // right: a removed line
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
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
		var pk int
		if k == -d || (k != d && at(d-1, k-1) < at(d-1, k+1)) {
			pk = k + 1 // came down: a line of y added
		} else {
			pk = k - 1 // came right: a line of x removed
		}
		pi := at(d-1, pk)
		pj := pi - pk
		ei, ej := pi+1, pj // where the edit led, before the common run
		if pk == k+1 {
			ei, ej = pi, pj+1
		}
		for i > ei && j > ej {
			i, j = i-1, j-1
			rev = append(rev, op{' ', i, j})
		}
		if pk == k+1 {
			rev = append(rev, op{'+', pi, pj})
		} else {
			rev = append(rev, op{'-', pi, pj})
		}
		i, j = pi, pj
	}
	for i > 0 && j > 0 {
		i, j = i-1, j-1
		rev = append(rev, op{' ', i, j})
	}
	out := make([]op, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
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

func writeHunk(out *strings.Builder, h hunk, x, y []string) {
	aStart, bStart, aLen, bLen := -1, -1, 0, 0
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
