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
// holds "##[" anywhere. Azure Pipelines reads "##vso[task.setvariable …]"
// and TeamCity "##teamcity[setParameter …]" the same way (either, in any
// letter case, taken here wherever it is in a line). The runner ends lines
// at "\n" and at "\r". Server text must write none: the Writer prefixes a
// line that starts with "::" with "| ", and writes the "[" that opens
// "##[", "##vso[" or "##teamcity[" as "\[" (in JSON, "\u005b", the same
// value).

// WorkflowCommand reports whether a CI runner would read line (one line,
// without its end) as a workflow command.
func WorkflowCommand(line string) bool {
	if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
		return true
	}
	for i := strings.IndexByte(line, '['); i >= 0; i = nextBracket(line, i) {
		if OpensCommand(line[:i]) {
			return true
		}
	}
	return false
}

// OpensCommand reports whether a "[" written after before (the line so far)
// opens a CI runner's command: before ends with "##", "##vso" or
// "##teamcity", in any letter case. A writer of its own escaping (a
// script's quoting, an annotation's data) escapes such a "[".
func OpensCommand(before string) bool {
	return opensCommand([]byte(before[max(0, len(before)-maxCommandName):]))
}

// DefuseCommands returns s with the "[" that opens "##[", "##vso[" or
// "##teamcity[" written "\[", for text of a line that is escaped
// otherwise (a comment, an annotation's message).
func DefuseCommands(s string) string {
	var b strings.Builder
	start := 0
	for i := strings.IndexByte(s, '['); i >= 0; i = nextBracket(s, i) {
		if OpensCommand(s[:i]) {
			b.WriteString(s[start:i])
			b.WriteString(`\[`)
			start = i + 1
		}
	}
	if start == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

// nextBracket returns the index of the next "[" in s after i, or -1.
func nextBracket(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '[')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// commandNames are the runners' command markers before their "[", by
// their last byte.
var commandNames = [...]string{"##", "##vso", "##teamcity"}

// maxCommandName is the length of the longest of commandNames.
const maxCommandName = len("##teamcity")

// opensCommand reports whether a "[" after before opens a workflow command:
// before ends with "##", "##vso" or "##teamcity" (in any letter case).
func opensCommand(before []byte) bool {
	if len(before) < 2 {
		return false
	}
	switch before[len(before)-1] {
	case '#', 'o', 'O', 'y', 'Y':
	default:
		return false // the common "[": no need to look further
	}
	for _, name := range commandNames {
		if len(before) >= len(name) && bytes.EqualFold(before[len(before)-len(name):], []byte(name)) {
			return true
		}
	}
	return false
}

// commandPrefix is what a line that would read as a command starts with.
const commandPrefix = "| "

// cmdGuard defuses workflow commands in a stream of lines, whatever the
// writes are cut into. At the start of a line it holds the white space and
// a colon until the line shows what it is.
type cmdGuard struct {
	json  bool                 // "[" after "##" is written \u005b, not \[
	start bool                 // the next byte starts a line
	held  []byte               // the start of the line, undecided
	lead  int                  // how much of held is white space the runner trims
	shown int                  // how much of held a flush wrote already
	tail  [maxCommandName]byte // the line's last bytes so far (at most maxCommandName)
	tailN int                  // how many of tail hold them
}

// leadingSpace is the white space the runner trims before "::".
func leadingSpace(r rune) bool { return r != '\n' && r != '\r' && unicode.IsSpace(r) }

// passes reports whether p goes out as it is, and if so takes it in: the
// common case, checked with fast scans (no line of p starts with white
// space or a colon, no "[" opens a command), so that the guard costs no copy.
func (g *cmdGuard) passes(p []byte) bool {
	if len(p) == 0 {
		return true
	}
	if len(g.held) > 0 || g.start && !plainStart(p[0]) {
		return false
	}
	if !g.linesStartPlain(p) || g.opensAny(p) {
		return false
	}
	last := p[len(p)-1]
	g.start = last == '\n' || last == '\r'
	g.remember(p)
	return true
}

// linesStartPlain reports whether every line that begins inside p is
// decided at its first byte to be no command.
func (g *cmdGuard) linesStartPlain(p []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(p[i:], '\n')
		if g.json {
			// JSON keeps "\r" (white space between tokens) as it is.
			if k := bytes.IndexByte(p[i:], '\r'); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			return true
		}
		i += j + 1
		if i < len(p) && !plainStart(p[i]) {
			return false
		}
	}
}

// opensAny reports whether a "[" in p opens a workflow command.
func (g *cmdGuard) opensAny(p []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(p[i:], '[')
		if j < 0 {
			return false
		}
		i += j
		if g.opens(p[:i]) {
			return true
		}
		i++
	}
}

// opens reports whether a "[" after line, the rest of the line so far
// (past what the guard remembers of it), opens a workflow command.
func (g *cmdGuard) opens(line []byte) bool {
	if k := bytes.LastIndexAny(line, "\n\r"); k >= 0 {
		return opensCommand(line[k+1:])
	}
	if len(line) >= maxCommandName {
		return opensCommand(line)
	}
	var buf [2 * maxCommandName]byte
	return opensCommand(append(append(buf[:0], g.tail[:g.tailN]...), line...))
}

// remember keeps the last bytes of the line once p is written.
func (g *cmdGuard) remember(p []byte) {
	if k := bytes.LastIndexAny(p, "\n\r"); k >= 0 {
		g.tailN = 0
		p = p[k+1:]
	}
	if len(p) >= maxCommandName {
		g.tailN = copy(g.tail[:], p[len(p)-maxCommandName:])
		return
	}
	if keep := maxCommandName - len(p); g.tailN > keep {
		copy(g.tail[:], g.tail[g.tailN-keep:g.tailN])
		g.tailN = keep
	}
	g.tailN += copy(g.tail[g.tailN:], p)
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
			if opensCommand(g.tail[:g.tailN]) {
				if g.json {
					out.WriteString(`\u005b`)
				} else {
					out.WriteString(`\[`)
				}
			} else {
				out.WriteByte('[')
			}
			g.remember([]byte{'['})
			continue
		}
		out.WriteByte(c)
		g.start, g.tailN = true, 0
	}
}

// body writes a piece of a line past its start that holds no line end and
// no "[", and remembers how the line ends.
func (g *cmdGuard) body(out *bytes.Buffer, p []byte) {
	out.Write(p)
	g.remember(p)
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
