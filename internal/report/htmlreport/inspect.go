package htmlreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/text/runecut"
)

// inspectPage is the body of an `inspect` report.
type inspectPage struct {
	Score    int
	ScoreBar meter
	Server   string
	Protocol string
	Offers   string
	Declares string
	Errors   []findingView
	Criteria []criterionView
	Findings int
	Asking   []askingView
	Probed   bool
	// ProbeName names probing in the caller's terms (inspect.OptionProbe).
	ProbeName string
	Probes    []probeView
	Icons     []iconView
	IconsSeen int
}

// meter is a bar of Fill out of 100, drawn as SVG.
type meter struct {
	Width, Fill string
	Level       string // "", "mid" or "low": the colour
}

// newMeter is a meter width wide, filled to share (0 to 1).
func newMeter(share float64, width int) meter {
	share = min(max(share, 0), 1)
	level := ""
	switch {
	case share < 0.5:
		level = "low"
	case share < 0.8:
		level = "mid"
	}
	return meter{Width: strconv.Itoa(width), Fill: coord(share * float64(width)), Level: level}
}

type criterionView struct {
	ID, Name string
	Applies  bool
	Points   string // "12.5"
	Weight   int
	Full     bool
	Bar      meter
	Findings []findingView
}

type findingView struct{ Subject, Problem, Advice string }

type askingView struct {
	Name  string
	Said  bool
	Asked []string
}

type probeView struct {
	What, Args, Error string
	Questions         []string
}

type iconView struct {
	Owner, Source, Problem, Type, File string
	OK                                 bool
	Bytes                              int
}

// criterion is the view of one criterion: its points, a bar when it
// weighs anything, and its findings.
func (t text) criterion(c inspect.Criterion) criterionView {
	cv := criterionView{ID: c.ID, Name: t.line(c.Name), Applies: c.Applies, Weight: c.Weight,
		Points: strconv.FormatFloat(c.Points, 'f', -1, 64), Full: c.Points >= float64(c.Weight)}
	if c.Weight > 0 {
		cv.Bar = newMeter(c.Points/float64(c.Weight), 120)
	}
	for _, f := range c.Findings {
		cv.Findings = append(cv.Findings, findingView{Subject: t.line(f.Subject), Problem: t.line(f.Problem), Advice: t.line(f.Advice)})
	}
	return cv
}

// asking is the views of the tools (or prompts, prefix "prompt ") that
// ask the user, with the questions seen.
func (t text) asking(prefix string, tools []inspect.ElicitingTool) []askingView {
	var out []askingView
	for _, e := range tools {
		v := askingView{Name: prefix + t.line(e.Name), Said: e.Said}
		for _, q := range e.Asked {
			v.Asked = append(v.Asked, t.question2(q))
		}
		out = append(out, v)
	}
	return out
}

// probe is the view of one --probe call: what was called, with what, and
// the questions it asked.
func (t text) probe(p inspect.Probe) probeView {
	what := "tool " + p.Tool
	if p.Prompt != "" {
		what = "prompt " + p.Prompt
	}
	v := probeView{What: t.line(what), Args: t.jsonLine(p.Args), Error: t.line(p.Error)}
	for _, q := range p.Questions {
		v.Questions = append(v.Questions, t.question2(q))
	}
	return v
}

// WriteInspect writes the page of `inspect`: the score, each criterion
// with its points and the findings with what to do about each, which tools
// and prompts ask the user, and what probing and checking the icons found.
func WriteInspect(w io.Writer, m Meta, r *inspect.Report, probes []inspect.Probe, icons []inspect.IconCheck) error {
	t := text{m.Hide}
	name := t.serverName(r.Server, r.Version)
	body := inspectPage{
		Score:     r.Score,
		ScoreBar:  newMeter(float64(r.Score)/100, 300),
		Server:    name,
		Protocol:  t.line(r.Protocol),
		Offers:    fmt.Sprintf("%d tool%s, %d prompt%s, %d resource%s, %d resource template%s", r.Counts.Tools, plural(r.Counts.Tools), r.Counts.Prompts, plural(r.Counts.Prompts), r.Counts.Resources, plural(r.Counts.Resources), r.Counts.Templates, plural(r.Counts.Templates)),
		Declares:  t.line(strings.Join(r.Declares, ", ")),
		Probed:    r.Elicit.Probed,
		ProbeName: r.Name.Word(inspect.OptionProbe),
		IconsSeen: r.IconsSeen,
	}
	for _, e := range r.Errors {
		body.Errors = append(body.Errors, findingView{Subject: t.line(e.Subject), Problem: t.line(e.Problem), Advice: t.line(e.Advice)})
	}
	for _, c := range r.Criteria {
		cv := t.criterion(c)
		body.Findings += len(cv.Findings)
		body.Criteria = append(body.Criteria, cv)
	}
	body.Asking = append(t.asking("", r.Elicit.Tools), t.asking("prompt ", r.Elicit.Prompts)...)
	for _, p := range probes {
		body.Probes = append(body.Probes, t.probe(p))
	}
	for _, ic := range icons {
		body.Icons = append(body.Icons, iconView{Owner: t.line(ic.Owner), Source: t.line(runecut.Clip(ic.Source, 200)), Problem: t.line(ic.Problem),
			Type: t.line(ic.MIMEType), File: t.line(ic.File), OK: ic.OK, Bytes: ic.Bytes})
	}
	verdict := "passed"
	switch {
	case r.Score < 50:
		verdict = "failed"
	case r.Score < 80:
		verdict = "incomplete"
	}
	return render(w, m, "inspect", fmt.Sprintf("score %d/100", r.Score), fmt.Sprintf("%s, protocol %s", name, body.Protocol), verdict, body)
}

// question2 is a question a probe saw, on one line.
func (t text) question2(q inspect.Question) string {
	s := q.Mode + ": " + q.Message
	if q.Key != "" {
		s = strconv.Quote(q.Key) + " " + s
	}
	return t.line(s)
}
