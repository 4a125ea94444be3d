package iostreams_test

import (
	"bytes"
	"fmt"

	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// screen plays what was written to a terminal as the terminal shows it:
// "\r" returns to the start of the line, "\x1b[K" erases to its end, "\n"
// starts a new line. Any other escape sequence fails the test.
func screen(t *testing.T, written string) []string {
	t.Helper()
	lines := []string{""}
	col := 0
	for i := 0; i < len(written); i++ {
		cur := []rune(lines[len(lines)-1])
		switch c := written[i]; {
		case c == '\r':
			col = 0
		case c == '\n':
			lines = append(lines, "")
			col = 0
		case strings.HasPrefix(written[i:], "\x1b[K"):
			lines[len(lines)-1] = string(cur[:col])
			i += 2
		case c == 0x1b:
			t.Fatalf("an escape sequence other than erase-line reached the terminal: %q", written[i:])
		default:
			r := []rune(written[i:])[0]
			i += len(string(r)) - 1
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
			lines[len(lines)-1] = string(cur)
		}
	}
	return lines
}

// terminal is streams whose stdout and stderr are one terminal, as a
// person at it has them, width cells wide.
func terminal(width int) (*iostreams.IOStreams, *bytes.Buffer) {
	io, _, tty, _ := iostreams.Test()
	io.ErrOut = tty
	io.SetTTY(true, true, true)
	io.SetTerminalWidth(width)
	io.Neutralize(false)
	return io, tty
}

func TestStatusLineNotATerminal(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	io.SetTTY(false, true, false)
	io.Neutralize(false)
	l := io.StartStatus()
	if l != nil {
		t.Fatal("a status line on stderr that is not a terminal")
	}
	l.Set("3 of 10") // a nil status line does nothing
	fmt.Fprintln(io.Out, "report")
	l.Done()
	if errOut.Len() != 0 || out.String() != "report\n" {
		t.Errorf("stdout %q, stderr %q: want the report alone and nothing on stderr", out, errOut)
	}
}

// The report and the progress share the terminal: each report line is
// written where the status line was, and the status line comes back below
// it; at the end the status line is gone and the screen holds the report.
func TestStatusLineMakesWayForOutput(t *testing.T) {
	io, tty := terminal(80)
	l := io.StartStatus()
	l.Set("[1/3] running a.mcp")
	fmt.Fprintln(io.Out, "a.mcp")
	fmt.Fprintln(io.Out, "  ✓ call_tool deploy (line 2)")
	if got := screen(t, tty.String()); !equal(got, []string{"a.mcp", "  ✓ call_tool deploy (line 2)", "[1/3] running a.mcp"}) {
		t.Errorf("screen while running:\n%s", strings.Join(got, "\n"))
	}
	l.Set("[2/3] running b.mcp")
	fmt.Fprintln(io.ErrOut, "warning: something")
	l.Set("[3/3] running c.mcp")
	fmt.Fprintln(io.Out, "total: 3 passed, 0 failed")
	l.Done()
	got := screen(t, tty.String())
	want := []string{"a.mcp", "  ✓ call_tool deploy (line 2)", "warning: something", "total: 3 passed, 0 failed", ""}
	if !equal(got, want) {
		t.Errorf("screen at the end:\n%q\nwant\n%q", got, want)
	}
	l.Set("after the end") // nothing
	fmt.Fprintln(io.Out, "more")
	if strings.Contains(tty.String(), "after the end") || strings.Count(tty.String(), "more") != 1 {
		t.Errorf("after Done: %q", tty.String())
	}
}

// With stdout in a file, the report has no trace of the status line.
func TestStatusLineNeverInStdout(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	io.SetTTY(false, false, true)
	io.Neutralize(false)
	l := io.StartStatus()
	l.Set("[1/2] running")
	fmt.Fprintln(io.Out, "a.mcp: 7 passed, 0 failed")
	l.Set("[2/2] running")
	l.Done()
	if out.String() != "a.mcp: 7 passed, 0 failed\n" {
		t.Errorf("stdout: %q", out)
	}
	if got := screen(t, errOut.String()); !equal(got, []string{""}) || !strings.Contains(errOut.String(), "[2/2] running") {
		t.Errorf("stderr %q shows %q", errOut, got)
	}
}

// What a server named (a tool, a script) cannot drive the terminal from
// the status line, nor make it wrap: it is escaped and cut to the width.
func TestStatusLineEscapedAndCut(t *testing.T) {
	io, tty := terminal(20)
	l := io.StartStatus()
	l.Set("auditing \x1b[2J\u202etool with a long name")
	got := screen(t, tty.String())
	last := got[len(got)-1]
	if !strings.HasPrefix(last, `auditing \x1b[2J`) || len([]rune(last)) != 19 || !strings.HasSuffix(last, "…") {
		t.Errorf("status line %q: want the escapes shown, cut to 19 cells with …", last)
	}
	l.Done()
}

// A prompt (a write that does not end its line) is not erased by the
// status line: it is drawn again only once the line is ended.
func TestStatusLineSparesAPrompt(t *testing.T) {
	io, tty := terminal(80)
	l := io.StartStatus()
	l.Set("working")
	io.ErrOut.Write([]byte("Name? "))
	l.Set("still working")
	if got := screen(t, tty.String()); got[len(got)-1] != "Name? " {
		t.Errorf("the prompt was overwritten: %q", got)
	}
	io.ErrOut.Write([]byte("alice\n"))
	if got := screen(t, tty.String()); !equal(got, []string{"Name? alice", "still working"}) {
		t.Errorf("screen: %q", got)
	}
	l.Done()
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// While a person answers a form on the terminal, the status line is off
// the screen and stays off whatever is set; it comes back after.
func TestStatusLinePausedForAPerson(t *testing.T) {
	io, tty := terminal(80)
	l := io.StartStatus()
	l.Set("[0/1 scripts] running a.mcp")
	l.Pause()
	l.Set("[0/1 scripts] 1 passed")
	before := tty.Len()
	io.TerminalErr().Write([]byte("form drawn by the person's answerer\n"))
	l.Set("[0/1 scripts] 2 passed")
	if got := tty.String()[before:]; got != "form drawn by the person's answerer\n" {
		t.Errorf("while paused the terminal got %q", got)
	}
	l.Resume()
	if got := screen(t, tty.String()); !equal(got, []string{"form drawn by the person's answerer", "[0/1 scripts] 2 passed"}) {
		t.Errorf("screen: %q", got)
	}
	l.Done()
}
