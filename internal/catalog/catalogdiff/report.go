package catalogdiff

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/report/ghactions"
	"github.com/askback/askback/internal/report/mdtext"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/askback/askback/internal/text/termsafe"
)

// Files says where the catalogs compared are written, to show each change
// at its line: a file path and the lines of its paths (catalog.Encode), or
// "" for a live server.
type Files struct {
	Old, New           string
	OldLines, NewLines catalog.Lines
}

// Locate is the file and line of a change: in the new catalog's file, or
// the old one's for what was removed (or when the new catalog is a live
// server: then at the nearest place the old file has). Line is 0 when
// unknown, file "" when neither catalog is a file.
func (f Files) Locate(c Change) (file string, line int) {
	if f.New != "" && !c.Removed {
		return f.New, f.NewLines.Line(c.Path)
	}
	if f.Old != "" {
		return f.Old, f.OldLines.Line(c.Path)
	}
	return "", 0
}

// Text is the change for people, on one line: subject and message.
func (c Change) Text() string {
	if strings.HasPrefix(c.Message, c.Subject) || c.Subject == "" {
		return c.Message
	}
	return c.Subject + ": " + c.Message
}

// texts returns the old and new values when both are text worth showing
// whole (a description before and after).
func (c Change) texts() (old, new string, ok bool) {
	o, ok1 := c.Old.(string)
	n, ok2 := c.New.(string)
	if !ok1 && c.Old != nil || !ok2 && c.New != nil || !ok1 && !ok2 {
		return "", "", false
	}
	switch c.Rule {
	case RuleDescriptionChanged, RuleTitleChanged, RuleInstructionsChanged, RuleServerInfoChanged, RuleResourceInfoChanged:
		return o, n, true
	}
	return "", "", false
}

// maxShown bounds how much of a text a report shows.
const maxShown = 4000

// WriteText writes the report for people: one block per change, most
// serious first, with the old and new text of what the model is told,
// then the counts. Everything a server wrote is escaped.
func (r *Report) WriteText(w io.Writer, t Threshold) error {
	b := bufio.NewWriter(w) // written as it is made: a report can be as large as its catalogs
	fmt.Fprintf(b, "%s → %s\n", sideName(r.Old, termsafe.Line), sideName(r.New, termsafe.Line))
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", termsafe.Line(n))
	}
	for _, c := range r.Changes {
		fmt.Fprintf(b, "%-9s %s\n", strings.ToUpper(c.Class().String()), termsafe.Line(c.Text()))
		fmt.Fprintf(b, "          at %s [%s]\n", termsafe.Line(string(c.Path)), c.Rule.ID)
		if o, n, ok := c.texts(); ok {
			if o != "" {
				fmt.Fprintf(b, "          - %s\n", indent(termsafe.Clip(o, maxShown)))
			}
			if n != "" {
				fmt.Fprintf(b, "          + %s\n", indent(termsafe.Clip(n, maxShown)))
			}
		}
	}
	fmt.Fprintln(b, r.summary(t))
	return b.Flush()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n            ") }

// sideName names one side of the diff, "server 1.2 (file)", each part
// made safe by esc for where it is written.
func sideName(s Side, esc func(string) string) string {
	name := esc(s.Server)
	if s.Version != "" {
		name += " " + esc(s.Version)
	}
	if s.Source != "" {
		name += " (" + esc(s.Source) + ")"
	}
	return name
}

// summary is the last line: the counts and whether the diff fails.
func (r *Report) summary(t Threshold) string {
	if len(r.Changes) == 0 {
		return "no changes"
	}
	s := fmt.Sprintf("%d change%s: %d breaking, %d to review, %d safe", len(r.Changes), plural(len(r.Changes)),
		r.Count(Breaking), r.Count(Review), r.Count(Safe))
	if r.Fails(t) {
		s += fmt.Sprintf(" (fails: %s %s)", r.Name.Word(OptionThreshold), t)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// jsonReport is the JSON document's members before its "changes", the
// last, which are written one at a time (WriteJSON).
type jsonReport struct {
	Old    Side           `json:"old"`
	New    Side           `json:"new"`
	FailOn string         `json:"failOn"`
	Failed bool           `json:"failed"`
	Counts map[string]int `json:"counts"`
	Notes  []string       `json:"notes,omitempty"`
}

type jsonChange struct {
	Class   Class  `json:"class"`
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Subject string `json:"subject"`
	Message string `json:"message"`
	Old     any    `json:"old,omitempty"`
	New     any    `json:"new,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// WriteJSON writes the report as one JSON document: both sides, the
// threshold and whether it failed, the counts by class, and every change
// with its class, rule, path, message, old and new values and, when a
// catalog is a file, where in it.
func (r *Report) WriteJSON(w io.Writer, t Threshold, f Files) error {
	head := jsonReport{Old: r.Old, New: r.New, FailOn: t.String(), Failed: r.Fails(t),
		Counts: map[string]int{"breaking": r.Count(Breaking), "review": r.Count(Review), "safe": r.Count(Safe)},
		Notes:  r.Notes}
	// The document as one encoding of it indents it, written a change at
	// a time: a report can be as large as its catalogs.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(head); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(termsafe.JSON(bytes.TrimSuffix(b.Bytes(), []byte("\n}\n"))))
	bw.WriteString(",\n  \"changes\": [")
	enc.SetIndent("    ", "  ")
	for i, c := range r.Changes {
		file, line := f.Locate(c)
		b.Reset()
		if err := enc.Encode(jsonChange{Class: c.Class(), Rule: c.Rule.ID, Path: string(c.Path), Subject: c.Subject,
			Message: c.Message, Old: c.Old, New: c.New, File: file, Line: line}); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(termsafe.JSON(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
	}
	if len(r.Changes) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// WriteMarkdown writes the report as a pull request's comment: a heading
// with the counts, then a table per class, the old and new text of what
// the model is told in collapsed details. Server text is plain text there
// (internal/report/mdtext): no link, image, HTML or mention.
func (r *Report) WriteMarkdown(w io.Writer, t Threshold) error {
	b := bufio.NewWriter(w)
	verdict := "no changes"
	if len(r.Changes) > 0 {
		verdict = fmt.Sprintf("%d breaking, %d to review, %d safe", r.Count(Breaking), r.Count(Review), r.Count(Safe))
	}
	fmt.Fprintf(b, "### MCP server catalog: %s\n\n", verdict)
	fmt.Fprintf(b, "%s → %s", sideName(r.Old, mdtext.Text), sideName(r.New, mdtext.Text))
	if r.Fails(t) {
		fmt.Fprintf(b, " — **fails** (`%s %s`)", r.Name.Word(OptionThreshold), t)
	}
	b.WriteString("\n")
	for _, n := range r.Notes {
		fmt.Fprintf(b, "\n> Note: %s\n", mdtext.Text(n))
	}
	sections := []struct {
		class Class
		title string
	}{
		{Breaking, "Breaking for callers"},
		{Review, "To review: what the model or the user is told"},
		{Safe, "Safe"},
	}
	for _, s := range sections {
		if r.Count(s.class) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n#### %s (%d)\n\n| Change | Where | Rule |\n| --- | --- | --- |\n", s.title, r.Count(s.class))
		var details []Change
		for _, c := range r.Changes {
			if c.Class() != s.class {
				continue
			}
			fmt.Fprintf(b, "| %s | %s | `%s` |\n", mdtext.Text(c.Text()), mdtext.Code(string(c.Path)), c.Rule.ID)
			if _, _, ok := c.texts(); ok {
				details = append(details, c)
			}
		}
		for _, c := range details {
			o, n, _ := c.texts()
			fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n", mdtext.Text(c.Text()))
			fmt.Fprintf(b, "Before: %s\n\nAfter: %s\n\n</details>\n", mdOr(o), mdOr(n))
		}
	}
	return b.Flush()
}

func mdOr(s string) string {
	if s == "" {
		return "*(none)*"
	}
	return mdtext.Text(termsafe.Clip(s, maxShown))
}

// sarifLevel is the level of a change's result in SARIF.
func sarifLevel(c Class) sarif.Level {
	switch c {
	case Breaking:
		return sarif.Error
	case Review:
		return sarif.Warning
	}
	return sarif.Note
}

// SARIF returns the report as a SARIF run of tool: every rule, and one
// result per change, at its line of a catalog file when there is one
// (r.Files) and at its path in the catalog; results about live servers
// are shown at the old file, else the new one, else at's file.
func (r *Report) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	f := r.Files
	run := &sarif.Run{Tool: tool, Anchor: cmp.Or(f.Old, f.New, at.File)}
	for _, rule := range Rules() {
		sr := sarif.Rule{ID: rule.ID, Short: rule.Short, Help: rule.Help, Level: sarifLevel(rule.Class),
			Tags: []string{"mcp", "catalog", rule.Class.String()}, SecuritySeverity: rule.Severity}
		if rule.Severity != "" {
			sr.Tags = append(sr.Tags, "security")
		}
		run.Rules = append(run.Rules, sr)
	}
	for _, c := range r.Changes {
		loc := sarif.Location{Path: string(c.Path), Kind: "member"}
		loc.File, loc.Line = f.Locate(c)
		msg := c.Text()
		if o, n, ok := c.texts(); ok {
			msg += fmt.Sprintf("\nBefore: %s\nAfter: %s", termsafe.Clip(o, maxShown), termsafe.Clip(n, maxShown))
		}
		props := map[string]any{"class": c.Class().String()}
		if c.Old != nil {
			props["old"] = c.Old
		}
		if c.New != nil {
			props["new"] = c.New
		}
		run.Results = append(run.Results, sarif.Result{RuleID: c.Rule.ID, Message: msg, Locations: []sarif.Location{loc}, Properties: props})
	}
	return run
}

// Annotations returns a GitHub Actions annotation per change: an error
// for a breaking one, a warning to review, a notice for a safe one, at its
// line of a catalog file when there is one.
func (r *Report) Annotations(f Files) []ghactions.Annotation {
	var out []ghactions.Annotation
	for _, c := range r.Changes {
		file, line := f.Locate(c)
		level := map[Class]ghactions.Level{Breaking: ghactions.Error, Review: ghactions.Warning, Safe: ghactions.Notice}[c.Class()]
		out = append(out, ghactions.Annotation{Level: level, File: file, Line: line,
			Title: fmt.Sprintf("MCP catalog: %s (%s)", c.Class(), c.Rule.ID), Message: c.Text()})
	}
	return out
}
