package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/text/runecut"
)

// maxShownJSON bounds the JSON of one answer, schema or reply on a page.
const maxShownJSON = 4096

// scriptsPage is the body of a `test` report.
type scriptsPage struct {
	Scripts, Broken, Passed, Failed int
	Duration                        string
	ExitCode                        int
	// Failures are the failed steps and the scripts that could not run,
	// in the order of the scripts and their lines: shown first.
	Failures []stepView
	Files    []fileView
}

type fileView struct {
	ID             string
	Name           string
	Error          string // why the script could not run
	Passed, Failed int
	Duration       string
	Steps          []stepView
}

type stepView struct {
	ID       string // the step's anchor in its script's list
	Anchor   string // this view's own id: ID, or failure-N for its copy among the failures
	Where    string // FILE:LINE:COL
	Text     string // the command as written
	Passed   bool
	Message  string
	Expected string
	Actual   string
	Response string
	Output   string
	Duration string
	// Questions are what the server asked during the step, with the
	// answers given.
	Questions []questionView
}

// questionView is one question a server asked, and its answer.
type questionView struct {
	Key     string
	What    string // "form", "URL", "model reply", "roots"
	Message string
	URL     string
	Via     string
	Round   int
	Schema  string // the requested schema, indented JSON
	Action  string // accept, decline, cancel; empty when no answer was sent
	Content string // what was sent with it, JSON
	Note    string // why this answer, or why none
}

// step is the view of one step of the script name (its view's id
// fileID): where it is, what was expected and what came, and the
// questions asked during it.
func (t text) step(fileID, name string, st *script.StepResult) stepView {
	v := stepView{
		ID:       fmt.Sprintf("%s-line-%d", fileID, st.Line),
		Where:    t.line(fmt.Sprintf("%s:%d:%d", name, st.Line, st.Col)),
		Text:     t.line(st.Text),
		Passed:   st.Passed,
		Message:  t.block(st.Message),
		Expected: t.block(st.Expected),
		Actual:   t.block(st.Actual),
		Response: t.block(st.Response),
		Output:   t.block(st.Output),
	}
	if st.Duration > 0 {
		v.Duration = duration(st.Duration)
	}
	for _, q := range st.Questions {
		v.Questions = append(v.Questions, t.question(q))
	}
	v.Anchor = v.ID
	return v
}

// WriteScripts writes the page of a `test` run: a summary, the failed
// steps first (each at its FILE:LINE with what was expected and what came),
// then every script with its steps, the questions asked during each and
// the answers given.
func WriteScripts(w io.Writer, m Meta, r *script.Report) error {
	t := text{m.Hide}
	passed, failed := r.Counts()
	body := scriptsPage{Scripts: len(r.Scripts), Passed: passed, Failed: failed, Duration: duration(r.Duration), ExitCode: r.ExitCode()}
	for i, s := range r.Scripts {
		f := fileView{ID: fmt.Sprintf("script-%d", i+1), Name: t.line(s.Name), Duration: duration(s.Duration)}
		f.Passed, f.Failed = s.Counts()
		if s.Err != nil {
			body.Broken++
			f.Error = t.block(s.Err.Error())
			body.Failures = append(body.Failures, stepView{ID: f.ID, Where: f.Name, Text: "(the script could not run)", Message: f.Error})
		}
		for _, st := range s.Steps {
			v := t.step(f.ID, s.Name, st)
			f.Steps = append(f.Steps, v)
			if !st.Passed {
				body.Failures = append(body.Failures, v)
			}
		}
		body.Files = append(body.Files, f)
	}
	for i := range body.Failures {
		body.Failures[i].Anchor = fmt.Sprintf("failure-%d", i+1)
	}
	verdict, title := "passed", fmt.Sprintf("%d passed, %d failed", passed, failed)
	switch {
	case body.Broken > 0:
		verdict = "failed"
		title += fmt.Sprintf(", %d script%s could not run", body.Broken, plural(body.Broken))
	case failed > 0:
		verdict = "failed"
	}
	sub := fmt.Sprintf("%d script%s in %s", len(r.Scripts), plural(len(r.Scripts)), body.Duration)
	return render(w, m, "scripts", title, sub, verdict, body)
}

// question is the view of one entry of the question log.
func (t text) question(q exchange.Entry) questionView {
	v := questionView{Key: t.line(q.Key), Via: t.line(q.Via), Round: q.Round, Note: t.line(q.Note)}
	switch q.Asks {
	case exchange.AsksSampling:
		v.What = "model reply"
		if q.Sample != nil {
			v.Schema = t.json(q.Sample.Messages)
		}
		if q.Reply != nil {
			v.Action, v.Content = "reply", t.json(q.Reply.Content)
		}
		return v
	case exchange.AsksRoots:
		v.What, v.Action, v.Content = "roots", "roots", t.json(q.Roots)
		return v
	}
	v.What = "form"
	if q.Mode() == "url" {
		v.What = "URL"
	}
	v.Message, v.URL = t.block(q.Message()), t.line(q.URL())
	if s := q.Schema(); s != nil {
		v.Schema = t.json(s)
	}
	if q.Answer != nil {
		v.Action = t.line(q.Answer.Action)
		if q.Answer.Content != nil {
			v.Content = t.json(q.Answer.Content)
		}
	}
	return v
}

// json is v as indented JSON, cut at maxShownJSON bytes, neutralised
// (html/template escapes the markup: < stays < for the reader).
func (t text) json(v any) string { return t.encode(v, "  ") }

// jsonLine is v as JSON on one line, cut and neutralised as json is.
func (t text) jsonLine(v any) string { return t.encode(v, "") }

func (t text) encode(v any, indent string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return t.line(fmt.Sprint(v))
	}
	s := strings.TrimSuffix(b.String(), "\n")
	return t.block(runecut.Clip(s, maxShownJSON))
}
