package termsafe

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A CI runner reads every line of a step's output for workflow commands
// (GitHub Actions: "::add-mask::x", "::error file=…::message",
// "::stop-commands::token"): a line is one when it starts with "::" once
// the white space before it is trimmed, or, in the legacy form, when it
// holds "##[" anywhere. The runner ends lines at "\n" and at "\r". Server
// text must write none: the Writer prefixes such a line with "| " and
// writes "##[" as "##\[" (in JSON, "##\u005b", the same value).

// WorkflowCommand reports whether a CI runner would read line (one line,
// without its end) as a workflow command.
func WorkflowCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[")
}

// commandPrefix is what a line that would read as a command starts with.
const commandPrefix = "| "

// cmdGuard defuses workflow commands in a stream of lines, whatever the
// writes are cut into. At the start of a line it holds the white space and
// a colon until the line shows what it is.
type cmdGuard struct {
	json   bool   // "[" after "##" is written \u005b, not \[
	start  bool   // the next byte starts a line
	held   []byte // the start of the line, undecided
	lead   int    // how much of held is white space the runner trims
	shown  int    // how much of held a flush wrote already
	hashes int    // how many "#" (at most 2) the line ends in so far
}

// leadingSpace is the white space the runner trims before "::".
func leadingSpace(r rune) bool { return r != '\n' && r != '\r' && unicode.IsSpace(r) }

// passes reports whether p goes out as it is, and if so takes it in: the
// common case, checked with fast scans (no line of p starts with white
// space or a colon, no "[" follows "##"), so that the guard costs no copy.
func (g *cmdGuard) passes(p []byte) bool {
	if len(p) == 0 {
		return true
	}
	if len(g.held) > 0 || g.start && !plainStart(p[0]) {
		return false
	}
	for i := 0; ; {
		j := bytes.IndexByte(p[i:], '\n')
		if g.json {
			// JSON keeps "\r" (white space between tokens) as it is.
			if k := bytes.IndexByte(p[i:], '\r'); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(p) && !plainStart(p[i]) {
			return false
		}
	}
	for i := 0; ; {
		j := bytes.IndexByte(p[i:], '[')
		if j < 0 {
			break
		}
		i += j
		hashes := 0
		for hashes < 2 && hashes < i && p[i-1-hashes] == '#' {
			hashes++
		}
		if hashes == i {
			hashes = min(2, hashes+g.hashes)
		}
		if hashes >= 2 {
			return false
		}
		i++
	}
	last := p[len(p)-1]
	if g.start = last == '\n' || last == '\r'; g.start {
		g.hashes = 0
	} else {
		g.countHashes(p)
	}
	return true
}

// plainStart reports whether a line that starts with c is decided at c to
// be no command.
func plainStart(c byte) bool { return c < utf8.RuneSelf && c > ' ' && c != ':' }

// write writes p to out, defused.
func (g *cmdGuard) write(out *bytes.Buffer, p []byte) {
	for len(p) > 0 {
		if g.start {
			p = g.head(out, p)
			continue
		}
		i := bytes.IndexAny(p, "\n\r[")
		if i < 0 {
			g.body(out, p)
			return
		}
		g.body(out, p[:i])
		c := p[i]
		p = p[i+1:]
		if c == '[' {
			if g.hashes >= 2 {
				if g.json {
					out.WriteString(`\u005b`)
				} else {
					out.WriteString(`\[`)
				}
			} else {
				out.WriteByte('[')
			}
			g.hashes = 0
			continue
		}
		out.WriteByte(c)
		g.start, g.hashes = true, 0
	}
}

// body writes a piece of a line past its start that holds no line end and
// no "[", and counts the "#" it ends in.
func (g *cmdGuard) body(out *bytes.Buffer, p []byte) {
	out.Write(p)
	g.countHashes(p)
}

// countHashes counts the "#" (at most 2) the line ends in once p, a piece
// of it with no line end, is written.
func (g *cmdGuard) countHashes(p []byte) {
	n := 0
	for n < 2 && n < len(p) && p[len(p)-1-n] == '#' {
		n++
	}
	if n == len(p) {
		g.hashes = min(2, g.hashes+n)
	} else {
		g.hashes = n
	}
}

// head reads the start of a line from p until it is decided, and returns
// the rest of p.
func (g *cmdGuard) head(out *bytes.Buffer, p []byte) []byte {
	if len(g.held) == 0 && plainStart(p[0]) {
		g.start = false // the common line: it starts with a letter
		return p
	}
	for i, c := range p {
		if c == '\n' || c == '\r' {
			out.Write(g.held[g.shown:])
			out.WriteByte(c)
			g.held, g.lead, g.shown = g.held[:0], 0, 0
			continue
		}
		g.held = append(g.held, c)
		g.skipLead()
		trimmed := g.held[g.lead:]
		switch {
		case len(trimmed) == 0, !utf8.FullRune(trimmed):
			continue
		case len(trimmed) == 1 && trimmed[0] == ':':
			continue
		case len(trimmed) >= 2 && trimmed[0] == ':' && trimmed[1] == ':':
			out.WriteString(commandPrefix)
		}
		g.start = false
		g.write(out, g.held[g.shown:])
		g.held, g.lead, g.shown = g.held[:0], 0, 0
		return p[i+1:]
	}
	return nil
}

// skipLead moves lead past the white space that held has gained: each
// byte is looked at once, however long the run of white space that starts
// a line.
func (g *cmdGuard) skipLead() {
	for g.lead < len(g.held) {
		rest := g.held[g.lead:]
		if !utf8.FullRune(rest) {
			return
		}
		r, size := utf8.DecodeRune(rest)
		if !leadingSpace(r) {
			return
		}
		g.lead += size
	}
}

// flush writes what the guard holds; the line is still decided when it
// goes on.
func (g *cmdGuard) flush(out *bytes.Buffer) {
	out.Write(g.held[g.shown:])
	g.shown = len(g.held)
}
