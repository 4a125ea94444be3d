package scan

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/text/termsafe"
)

// Finding is one thing a rule found in one text.
type Finding struct {
	// Rule is the rule's stable id (MCPS001), Name its short name.
	Rule string `json:"rule"`
	Name string `json:"name"`
	// Severity is how much this finding matters (at most the rule's).
	Severity Severity `json:"severity"`
	// Server names the server of the text.
	Server string `json:"server,omitempty"`
	// Subject names what the text belongs to: `tool "add"`, `tool "add"
	// parameter "notes"`, `server`.
	Subject string `json:"subject"`
	// Path is the text's JSON path in the server's catalog (Catalog):
	// $.tools[0].inputSchema.properties.notes.description.
	Path string `json:"path"`
	// Reason says in one line what was found.
	Reason string `json:"reason"`
	// Excerpt is the text found, on one line and shortened, hidden
	// characters shown as escapes (\u200b).
	Excerpt string `json:"excerpt,omitempty"`
	// Count is how many times the rule found something in the text, when
	// more than once.
	Count int `json:"count,omitempty"`

	more int
	// dests are the addresses a finding of MCPS020 is about, in the
	// order found: its reason names the others (see withOthers).
	dests []string
}

// ServerSummary says what was scanned of one server.
type ServerSummary struct {
	Name         string `json:"name"`
	Version      string `json:"version,omitempty"`
	Tools        int    `json:"tools"`
	Prompts      int    `json:"prompts"`
	Resources    int    `json:"resources"`
	Templates    int    `json:"resourceTemplates"`
	Instructions bool   `json:"instructions"`
	// ClientCapabilities are what the client that listed the catalog
	// declared (the listing's Declared); absent for a catalog read from a
	// file that does not say.
	ClientCapabilities []string `json:"clientCapabilities,omitempty"`
}

// Counts are the findings by severity.
type Counts struct {
	High   int `json:"high"`
	Medium int `json:"medium"`
	Low    int `json:"low"`
	Info   int `json:"info"`
}

// Report is the outcome of a scan.
type Report struct {
	Servers []ServerSummary `json:"servers"`
	Counts  Counts          `json:"counts"`
	// Findings are ordered by severity, highest first, then as the
	// servers and their catalogs were read.
	Findings []Finding `json:"findings"`
}

// report builds the report from what the scan found.
func (s *scanner) report() *Report {
	r := &Report{Findings: []Finding{}}
	for _, srv := range s.servers {
		r.Servers = append(r.Servers, summarize(srv))
	}
	for _, f := range s.findings {
		if f.more > 0 {
			f.Count = f.more + 1
		}
		f.Reason = withOthers(f.Reason, f.dests)
		r.Findings = append(r.Findings, f)
		r.Counts.add(f.Severity)
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Severity > r.Findings[j].Severity })
	return r
}

// maxOthers bounds the other addresses a reason names.
const maxOthers = 8

// withOthers is reason followed by the addresses of dests it does not
// name: "…; also to https://b.example/x, c@d.example".
func withOthers(reason string, dests []string) string {
	var others []string
	for _, d := range dests {
		if !strings.Contains(reason, d) {
			others = append(others, d)
		}
	}
	switch n := len(others); {
	case n == 0:
		return reason
	case n > maxOthers:
		return fmt.Sprintf("%s; also to %s and %d more", reason, strings.Join(others[:maxOthers], ", "), n-maxOthers)
	}
	return reason + "; also to " + strings.Join(others, ", ")
}

// summarize says what the scan read of srv.
func summarize(srv Server) ServerSummary {
	c := srv.Catalog
	sum := ServerSummary{Name: srv.Name, Tools: len(c.Tools), Prompts: len(c.Prompts), Resources: len(c.Resources),
		Templates: len(c.Templates), Instructions: c.Instructions() != "", ClientCapabilities: c.Declared}
	if si := c.ServerInfo(); si != nil {
		sum.Version = si.Version
	}
	return sum
}

// add counts one finding of severity sev.
func (c *Counts) add(sev Severity) {
	switch sev {
	case High:
		c.High++
	case Medium:
		c.Medium++
	case Low:
		c.Low++
	case Info:
		c.Info++
	}
}

// AtLeast counts the findings of severity sev or higher.
func (r *Report) AtLeast(sev Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity >= sev {
			n++
		}
	}
	return n
}

// ByRule returns the findings of the rule with id.
func (r *Report) ByRule(id string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}

// WriteText renders the report for a person. Everything the servers sent
// is neutralised and kept on its line (see internal/text/termsafe).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range r.Servers {
		writeSummary(&b, s)
	}
	several := len(r.Servers) > 1
	if len(r.Findings) == 0 {
		b.WriteString("\nNo findings.\n")
	} else {
		b.WriteString("\n")
	}
	for _, f := range r.Findings {
		writeFinding(&b, f, several)
	}
	fmt.Fprintf(&b, "\n%s: %d high, %d medium, %d low, %d info\n", count(len(r.Findings), "finding"), r.Counts.High, r.Counts.Medium, r.Counts.Low, r.Counts.Info)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSummary writes what was scanned of one server.
func writeSummary(b *strings.Builder, s ServerSummary) {
	name := termsafe.ServerName(s.Name, s.Version)
	what := []string{count(s.Tools, "tool"), count(s.Prompts, "prompt"), count(s.Resources, "resource"), count(s.Templates, "resource template")}
	if s.Instructions {
		what = append(what, "instructions")
	}
	fmt.Fprintf(b, "Scanned %s: %s\n", name, strings.Join(what, ", "))
	if s.ClientCapabilities != nil {
		fmt.Fprintf(b, "  %s\n", catalog.ListedBy(s.ClientCapabilities))
	}
}

// writeFinding writes one finding, with its server's name when several
// were scanned.
func writeFinding(b *strings.Builder, f Finding, several bool) {
	where := termsafe.Line(f.Subject)
	if several && f.Server != "" {
		where = termsafe.Line(f.Server) + ": " + where
	}
	reason := termsafe.Line(f.Reason)
	if f.Count > 1 {
		reason += fmt.Sprintf(" (%d times)", f.Count)
	}
	fmt.Fprintf(b, "%-6s %s %s: %s\n", f.Severity, f.Rule, f.Name, where)
	fmt.Fprintf(b, "       %s\n", reason)
	fmt.Fprintf(b, "       at %s\n", termsafe.Line(f.Path))
	if f.Excerpt != "" {
		fmt.Fprintf(b, "       > %s\n", termsafe.Line(f.Excerpt))
	}
}

// declared says a list of client capabilities, "nothing" for none.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
