package script

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/termsafe"
)

// WriteText writes the report as mcp-tester prints it: per script its
// name, one line per step (✓ or ✗, the command, its line), for a failed
// step the reason, the expected and actual values and an excerpt of the last
// response, then the script's summary; with several scripts, a total. The
// last line always ends in "N passed, N failed".
func WriteText(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	for _, s := range r.Scripts {
		fmt.Fprintf(ew, "%s\n", termsafe.Line(s.Name))
		for _, st := range s.Steps {
			writeStep(ew, st)
		}
		writeScriptSummary(ew, s)
	}
	writeTotal(ew, r)
	return ew.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func writeStep(w io.Writer, st *StepResult) {
	mark := "✓"
	if !st.Passed {
		mark = "✗"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %s (line %d)\n", mark, termsafe.Line(st.Text), st.Line)
	if st.Output != "" {
		indent(&b, "", st.Output)
	}
	if !st.Passed {
		indent(&b, "", st.Message)
		if st.Expected != "" {
			indent(&b, "expected: ", st.Expected)
		}
		if st.Actual != "" {
			indent(&b, "actual:   ", st.Actual)
		}
		if st.Diff != "" {
			indent(&b, "", strings.TrimSuffix(st.Diff, "\n"))
		}
		if st.Response != "" {
			indent(&b, "response: ", st.Response)
		}
	}
	_, _ = io.WriteString(w, b.String())
}

// indent writes text under a step, each line indented and neutralised
// (see internal/termsafe): the text quotes what the server sent.
func indent(b *strings.Builder, label, text string) {
	pad := "      "
	for i, line := range strings.Split(termsafe.Block(text), "\n") {
		line = termsafe.Line(line)
		if i == 0 {
			fmt.Fprintf(b, "%s%s%s\n", pad, label, line)
		} else {
			fmt.Fprintf(b, "%s%s%s\n", pad, strings.Repeat(" ", len(label)), line)
		}
	}
}

func writeScriptSummary(w io.Writer, s *ScriptResult) {
	if s.Err != nil {
		fmt.Fprintf(w, "%s: %s\n", termsafe.Line(s.Name), termsafe.Block(s.Err.Error()))
		return
	}
	p, f := s.Counts()
	fmt.Fprintf(w, "%s: %d passed, %d failed\n", termsafe.Line(s.Name), p, f)
}

// writeTotal writes the total line when there are several scripts or a
// script could not run.
func writeTotal(w io.Writer, r *Report) {
	broken := 0
	for _, s := range r.Scripts {
		if s.Err != nil {
			broken++
		}
	}
	if len(r.Scripts) < 2 && broken == 0 {
		return
	}
	p, f := r.Counts()
	what := fmt.Sprintf("%d script%s", len(r.Scripts), plural(len(r.Scripts)))
	if broken > 0 {
		what += fmt.Sprintf(", %d could not run", broken)
	}
	fmt.Fprintf(w, "total (%s): %d passed, %d failed\n", what, p, f)
}
