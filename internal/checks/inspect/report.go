package inspect

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/text/termsafe"
)

// WriteText renders the report for a person. What the server sent (names,
// versions, messages, the problems quoting it) is neutralised and kept on
// its line (see internal/text/termsafe).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	r.writeHeader(&b)
	fmt.Fprintf(&b, "\nScore: %d/100%s\n\n", r.Score, r.partialNote())
	r.writeCriteria(&b)
	r.writeFindings(&b)
	r.writeQuestions(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// partialNote says, after the score, which lists it leaves out; "" for a
// score of the whole server.
func (r *Report) partialNote() string {
	if !r.Partial {
		return ""
	}
	lists := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		lists[i] = termsafe.Line(e.Subject)
	}
	return fmt.Sprintf(" (partial: without what %s would have listed, which could not be read)", strings.Join(lists, " and "))
}

// Incomplete is why the report is no inspection of the whole server (a
// list it declares could not be read), or "".
func (r *Report) Incomplete() string {
	if !r.Partial {
		return ""
	}
	why := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		why[i] = e.Subject + " " + e.Problem
	}
	return strings.Join(why, "; ")
}

// writeHeader writes who the server is, what it offers and declares, and
// the lists that failed.
func (r *Report) writeHeader(b *strings.Builder) {
	name := termsafe.ServerName(r.Server, r.Version)
	fmt.Fprintf(b, "Server: %s, protocol %s\n", name, orNone(termsafe.Line(r.Protocol)))
	fmt.Fprintf(b, "Offers: %s, %s, %s, %s\n", count(r.Counts.Tools, "tool"), count(r.Counts.Prompts, "prompt"), count(r.Counts.Resources, "resource"), count(r.Counts.Templates, "resource template"))
	if len(r.Declares) > 0 {
		fmt.Fprintf(b, "Declares: %s\n", termsafe.Line(strings.Join(r.Declares, ", ")))
	}
	if r.ClientCapabilities != nil {
		fmt.Fprintf(b, "L%s\n", strings.TrimPrefix(catalog.ListedBy(r.ClientCapabilities), "l"))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(b, "Error: %s %s\n", termsafe.Line(e.Subject), termsafe.Line(e.Problem))
	}
}

// writeCriteria writes the table of the criteria and their points.
func (r *Report) writeCriteria(b *strings.Builder) {
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	for _, c := range r.Criteria {
		if !c.Applies {
			fmt.Fprintf(tw, "   %s\tn/a\n", termsafe.Line(c.Name))
			continue
		}
		mark := "ok"
		if c.Points < float64(c.Weight) {
			mark = "--"
		}
		fmt.Fprintf(tw, "%s %s\t%s/%d\n", mark, termsafe.Line(c.Name), strconv.FormatFloat(c.Points, 'f', -1, 64), c.Weight)
	}
	tw.Flush()
}

// writeFindings writes the criteria's findings with their advice, under
// a heading when there are any.
func (r *Report) writeFindings(b *strings.Builder) {
	first := true
	for _, c := range r.Criteria {
		for _, f := range c.Findings {
			if first {
				b.WriteString("\nFindings:\n")
				first = false
			}
			subj := ""
			if f.Subject != "" {
				subj = termsafe.Line(f.Subject) + ": "
			}
			fmt.Fprintf(b, "  [%s] %s%s\n      → %s\n", c.ID, subj, termsafe.Line(f.Problem), termsafe.Line(f.Advice))
		}
	}
}

// writeQuestions writes the tools and prompts that ask the user, and how
// that is known.
func (r *Report) writeQuestions(b *strings.Builder) {
	b.WriteString("\nQuestions to the user:")
	if len(r.Elicit.Tools) == 0 && len(r.Elicit.Prompts) == 0 {
		if r.Elicit.Probed {
			b.WriteString(" none seen (read-only tools probed; no description says a tool asks)\n")
		} else {
			fmt.Fprintf(b, " none said (no description says a tool asks; %s calls read-only tools to find out)\n", r.Name.Word(OptionProbe))
		}
		return
	}
	b.WriteString("\n")
	all := append([]ElicitingTool(nil), r.Elicit.Tools...)
	for _, p := range r.Elicit.Prompts {
		p.Name = "prompt " + p.Name
		all = append(all, p)
	}
	for _, t := range all {
		fmt.Fprintf(b, "  %s: %s\n", termsafe.Line(t.Name), strings.Join(howItAsks(t), "; "))
	}
	if !r.Elicit.Probed {
		fmt.Fprintf(b, "  (from descriptions only; %s calls read-only tools to see them ask)\n", r.Name.Word(OptionProbe))
	}
}

// howItAsks says how t is known to ask: its description, and each
// question a probe saw.
func howItAsks(t ElicitingTool) []string {
	var how []string
	if t.Said {
		how = append(how, "says so in its description")
	}
	for _, q := range t.Asked {
		key := ""
		if q.Key != "" {
			key = fmt.Sprintf(" %q", q.Key)
		}
		how = append(how, fmt.Sprintf("asked%s (%s): %s", key, termsafe.Line(q.Mode), oneLine(q.Message)))
	}
	return how
}

func oneLine(s string) string { return strings.Join(strings.Fields(termsafe.Line(s)), " ") }

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
