package script

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/termsafe"
)

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
