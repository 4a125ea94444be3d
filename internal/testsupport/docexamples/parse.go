// Package docexamples reads the examples of the project's Markdown documents
// (README.md, docs/*.md) and of the commands' --help, turns them into one
// shell script per document, and checks what each command printed against
// what the document shows. The test that runs every documented example
// (cmd/mcp-tester's TestDocExamplesRun) is built on it.
//
// A fenced code block says what it is on its opening fence line, the info
// string: its first word is the language, the rest marks.
//
//   - ```console: a terminal session. A line starting with "$ " is a
//     command, run with bash from the repository root (bin/ first on PATH);
//     a line ending in "\" continues it, and a heredoc (<<'EOF') takes the
//     lines up to its end. The lines after a command, up to the next "$ "
//     line, are what it prints (stdout and stderr as a terminal shows them);
//     a command shown without output may print anything. The lines shown
//     must match line by line, blank lines aside: "…" inside a line
//     stands for any text, a run of spaces for any run of spaces, a line holding only "..." or "…" for any number
//     of lines. A last line "(exit N)" says the command exits with N; without
//     one it must exit 0. The commands of one document run in order in one
//     shell, so exports and background servers carry over from block to block.
//   - ```mcp -c SERVER (or -u URL, or any flags of mcp-tester test): a test
//     script, run with `mcp-tester test -s SCRIPT -c SERVER`; every step must
//     pass.
//   - file=PATH anywhere among the marks: the block is the text of the
//     repository file PATH, byte for byte (```go file=examples/minimal/main.go).
//   - not run: REASON, as the last mark: a block of commands (console, sh)
//     or a script shown but not run, for the reason given (a person answers
//     at the terminal, a server on the internet).
//   - ```text, ```json, ```yaml, ```go and any other language: shown, not
//     run. A "$ " line in such a block is an error (mark it console).
//
// A block without an info string, a shell block (sh, bash) that is not
// marked not run, and a script without a server are errors, so that no
// command example goes untested unnoticed.
package docexamples

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a block is for the test.
type Kind int

const (
	// Shown: output, code or configuration; not run.
	Shown Kind = iota
	// Console: "$ " commands and what they print, run.
	Console
	// Script: an .mcp script, run with mcp-tester test and the block's flags.
	Script
	// NotRun: commands or a script marked "not run: REASON".
	NotRun
)

// Block is one fenced code block of a document.
type Block struct {
	File   string // the document, as given to Parse
	Line   int    // the line of the opening fence
	Lang   string // the first word of the info string
	Kind   Kind
	Reason string    // why a NotRun block is not run
	Path   string    // file=PATH: the repository file the block's text is
	Flags  string    // a Script's flags for mcp-tester test (-c SERVER …)
	Text   string    // the lines between the fences, each ending in a newline
	Cmds   []Command // a Console block's commands
}

// Command is one "$ " command of a console block (or one line of a --help
// example) and what the document shows it prints.
type Command struct {
	File string // the document
	Line int    // the line of its "$ "
	Text string // the command as written, continuation lines included
	Want []string
	// Checked: Want is compared with what the command prints; a command
	// shown without output, and the examples of --help, are not.
	Checked bool
	Exit    int // the exit code the document shows ("(exit N)"), else 0
}

// Where is the command's place in its document, as FILE:LINE.
func (c Command) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Error is a block written against the rules above.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// shells are the languages of blocks that hold commands without "$ ".
var shells = map[string]bool{"sh": true, "bash": true, "shell": true, "zsh": true, "shell-session": true}

// exitLine is the last output line that gives a command's exit code.
var exitLine = regexp.MustCompile(`^\(exit (\d+)\)$`)

// heredoc finds the delimiter of a heredoc a command line opens.
var heredoc = regexp.MustCompile(`<<-?\s*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|([A-Za-z_]\w*))`)

// Parse reads the fenced blocks of a Markdown document. file names it in
// blocks and errors. Every block is returned, with an error for each one
// written against the rules (see the package documentation).
func Parse(file, src string) ([]Block, []error) {
	var blocks []Block
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	sc := bufio.NewScanner(strings.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	var cur *Block
	var fence string
	var indent int // the fence's indentation, taken off its lines
	var body []string
	var bodyLines []int
	for sc.Scan() {
		n++
		l := sc.Text()
		if cur == nil {
			var info string
			var ok bool
			if indent, fence, info, ok = openingFence(l); !ok {
				continue
			}
			cur = &Block{File: file, Line: n}
			body, bodyLines = nil, nil
			if msg := cur.setInfo(info); msg != "" {
				fail(n, "%s", msg)
			}
			continue
		}
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
			cur.Text = strings.Join(body, "\n")
			if len(body) > 0 {
				cur.Text += "\n"
			}
			for _, e := range cur.finish(body, bodyLines) {
				fail(e.Line, "%s", e.Msg)
			}
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		for i := 0; i < indent && strings.HasPrefix(l, " "); i++ {
			l = l[1:]
		}
		body = append(body, l)
		bodyLines = append(bodyLines, n)
	}
	if cur != nil {
		fail(cur.Line, "the code block is not closed")
	}
	return blocks, errs
}

// openingFence reads l as the opening fence of a code block: its
// indentation, its fence (``` or ~~~, or longer) and its info string; ok is
// false when l opens no block.
func openingFence(l string) (indent int, fence, info string, ok bool) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || !(strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
		return 0, "", "", false
	}
	fence = t[:3]
	for len(fence) < len(t) && t[len(fence)] == t[0] {
		fence += t[:1]
	}
	info = strings.TrimSpace(t[len(fence):])
	if fence[0] == '`' && strings.Contains(info, "`") {
		return 0, "", "", false // inline code (CommonMark: no backtick in a backtick fence's info)
	}
	return len(l) - len(t), fence, info, true
}

// setInfo reads the info string of the opening fence, and returns what is
// wrong with it ("" when nothing is).
func (b *Block) setInfo(info string) string {
	if info == "" {
		return "the code block does not say what it is: ```console (\"$ \" commands that run, then what they print), ```text (output only), " +
			"```mcp -c SERVER (a script that runs), a language (```go, ```json), or ```console not run: REASON " +
			"(docs/ARCHITECTURE.md, \"Examples in the documents run\")"
	}
	b.Lang, info, _ = strings.Cut(info, " ")
	info = strings.TrimSpace(info)
	if i := strings.Index(info, "not run:"); i >= 0 {
		b.Reason = strings.TrimSpace(info[i+len("not run:"):])
		info = strings.TrimSpace(info[:i])
		if b.Reason == "" {
			return "\"not run:\" needs a reason after it (not run: a person answers the form)"
		}
	}
	var rest []string
	for _, w := range strings.Fields(info) {
		if p, ok := strings.CutPrefix(w, "file="); ok {
			if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
				return fmt.Sprintf("file=%s: give a path inside the repository", p)
			}
			b.Path = p
			continue
		}
		rest = append(rest, w)
	}
	switch {
	case b.Reason != "":
		b.Kind = NotRun
	case b.Lang == "console":
		b.Kind = Console
	case b.Lang == "mcp" && len(rest) > 0:
		b.Kind = Script
		b.Flags = strings.Join(rest, " ")
		return ""
	case b.Lang == "mcp" && b.Path != "":
		b.Kind = Shown // the file's own test runs it
	case b.Lang == "mcp":
		return "a script that does not say what it runs against: write ```mcp -c SERVER (or -u URL) and it runs with mcp-tester test, " +
			"```mcp file=PATH when it is a file of the repository, or ```mcp not run: REASON"
	case shells[b.Lang]:
		return fmt.Sprintf("a %s block: write it as ```console with \"$ \" before each command (it then runs, from the repository root), or mark it ```%s not run: REASON", b.Lang, b.Lang)
	}
	if len(rest) > 0 {
		return fmt.Sprintf("unknown marks %q after %s: the marks are file=PATH and not run: REASON (and a script's flags after mcp)", strings.Join(rest, " "), b.Lang)
	}
	return ""
}

// finish splits a console block into its commands, and checks that other
// blocks hold no "$ " commands.
func (b *Block) finish(body []string, lines []int) []Error {
	if b.Kind != Console {
		return b.noCommands(body, lines)
	}
	var errs []Error
	var cmd *Command
	cont, doc := false, ""
	for i := 0; i < len(body); i++ {
		l := body[i]
		switch {
		case cont || doc != "":
			cmd.Text += "\n" + l
			if doc != "" {
				if strings.TrimLeft(l, "\t") == doc {
					doc = ""
				}
				continue
			}
			cont = strings.HasSuffix(l, `\`)
			doc = heredocEnd(l)
		case strings.HasPrefix(l, "$ "):
			b.Cmds = append(b.Cmds, Command{File: b.File, Line: lines[i], Text: strings.TrimPrefix(l, "$ "), Checked: true})
			cmd = &b.Cmds[len(b.Cmds)-1]
			cont = strings.HasSuffix(l, `\`)
			doc = heredocEnd(l)
		case cmd == nil:
			if strings.TrimSpace(l) != "" {
				errs = append(errs, Error{Line: lines[i], Msg: "a console block starts with a command: \"$ \" then the command (what it prints comes after it)"})
				return errs
			}
		default:
			cmd.Want = append(cmd.Want, l)
		}
	}
	if cont || doc != "" {
		errs = append(errs, Error{Line: cmd.Line, Msg: "the command's last line continues (\\ or an open heredoc) past the end of the block"})
	}
	for i := range b.Cmds {
		b.Cmds[i].readWant()
	}
	return errs
}

// noCommands checks that a block shown but not run (of a language that is
// no shell) holds no "$ " command.
func (b *Block) noCommands(body []string, lines []int) []Error {
	if b.Kind != Shown || b.Lang == "" || shells[b.Lang] {
		return nil
	}
	for i, l := range body {
		if strings.HasPrefix(l, "$ ") {
			return []Error{{Line: lines[i], Msg: fmt.Sprintf("a command in a ```%s block, which is not run: make the block ```console (it then runs), or mark it ```%s not run: REASON", b.Lang, b.Lang)}}
		}
	}
	return nil
}

// readWant reads what the command is shown to print: its lines, trimmed,
// and the exit code a last "(exit N)" line gives.
func (c *Command) readWant() {
	c.Want = trimLines(c.Want)
	if k := len(c.Want); k > 0 {
		if m := exitLine.FindStringSubmatch(c.Want[k-1]); m != nil {
			c.Exit, _ = strconv.Atoi(m[1])
			c.Want = c.Want[:k-1]
		}
	}
	c.Checked = len(c.Want) > 0
}

// heredocEnd is the delimiter of a heredoc the line opens, "" when none.
func heredocEnd(l string) string {
	m := heredoc.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	return m[1] + m[2] + m[3]
}

// trimLines drops blank lines and trailing spaces.
func trimLines(ls []string) []string {
	var out []string
	for _, l := range ls {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// HelpCommands turns the Example text of a command's --help into commands:
// one a line, indentation taken off, a line ending in "\" joined with the
// next. Their output is not checked; each must exit 0.
func HelpCommands(where, example string) []Command {
	var out []Command
	cur := ""
	for _, l := range strings.Split(example, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasSuffix(l, `\`) {
			cur += l + "\n"
			continue
		}
		out = append(out, Command{File: where, Line: len(out) + 1, Text: cur + l})
		cur = ""
	}
	return out
}
