package script

import (
	"fmt"
	"io"
	"strconv"
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
	_, _ = w.Write(appendStep(nil, st))
}

// appendStep appends the lines of a step to b: the line of a passed step
// without output is made without fmt or a copy of its text.
func appendStep(b []byte, st *StepResult) []byte {
	mark := "✓"
	if !st.Passed {
		mark = "✗"
	}
	b = append(b, "  "...)
	b = append(b, mark...)
	b = append(b, ' ')
	b = append(b, termsafe.Line(st.Text)...)
	b = append(b, " (line "...)
	b = strconv.AppendInt(b, int64(st.Line), 10)
	b = append(b, ")\n"...)
	if st.Output == "" && st.Passed {
		return b
	}
	var more strings.Builder
	if st.Output != "" {
		indent(&more, "", st.Output)
	}
	if !st.Passed {
		indent(&more, "", st.Message)
		if st.Expected != "" {
			indent(&more, "expected: ", st.Expected)
		}
		if st.Actual != "" {
			indent(&more, "actual:   ", st.Actual)
		}
		if st.Diff != "" {
			indent(&more, "", strings.TrimSuffix(st.Diff, "\n"))
		}
		if st.Response != "" {
			indent(&more, "response: ", st.Response)
		}
	}
	return append(b, more.String()...)
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
