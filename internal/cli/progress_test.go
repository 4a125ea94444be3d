package cli

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
)

// A server's progress message reaches the terminal escaped, on one line.
func TestProgressPrinterEscapes(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	progressPrinter(io)(session.Progress{Tool: "slow\x1b[2J", Progress: 1, Total: 3, Message: "step\u202e one\nsecond line"})
	progressPrinter(io)(session.Progress{Tool: "open", Progress: 0.5})
	got := errOut.String()
	want := "[PROGRESS] slow\\x1b[2J: 1/3 step\\u202e one second line\n[PROGRESS] open: 0.5\n"
	if got != want {
		t.Errorf("stderr:\n%q\nwant\n%q", got, want)
	}
	if out.Len() != 0 || strings.ContainsAny(got, "\x1b\u202e") {
		t.Errorf("stdout %q, stderr %q: want nothing on stdout and nothing raw", out, got)
	}
}
