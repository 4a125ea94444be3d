package script

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// appendStep appends the lines of a step to b: the line of a passed step
// without output is made without fmt or a copy of its text.
func appendStep(b []byte, st *StepResult) []byte {
	b = appendStepLine(b, st.Passed, st.Text, st.Line)
	if st.Output == "" && st.Passed {
		return b
	}
	return append(b, st.Details()...)
}

// Details returns the lines the text report writes under a step, each
// indented and neutralised: what it printed and, when it failed, why, what
// was expected, what came, the diff and the response. Empty for a passed
// step that printed nothing.
func (st *StepResult) Details() string {
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
	return more.String()
}

// appendStepLine appends the first line of a step: its mark, its text and
// its line number.
func appendStepLine(b []byte, passed bool, text string, line int) []byte {
	mark := "✓"
	if !passed {
		mark = "✗"
	}
	b = append(b, "  "...)
	b = append(b, mark...)
	b = append(b, ' ')
	b = append(b, termsafe.Line(text)...)
	b = append(b, " (line "...)
	b = strconv.AppendInt(b, int64(line), 10)
	return append(b, ")\n"...)
}

// indent writes text under a step, each line indented and neutralised
// (see internal/text/termsafe): the text quotes what the server sent.
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
	interrupted := ""
	if n := s.InterruptedSteps(); n > 0 {
		interrupted = fmt.Sprintf(", %d interrupted", n)
	}
	fmt.Fprintf(w, "%s: %d passed, %d failed%s\n", termsafe.Line(s.Name), p, f, interrupted)
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
