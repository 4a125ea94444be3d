package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/askback/askback/internal/text/termsafe"
)

// jsonReport is the JSON report's shape; docs/scripts.md documents it.
type jsonReport struct {
	Passed     int   `json:"passed"`
	Failed     int   `json:"failed"`
	ExitCode   int   `json:"exitCode"`
	DurationMS int64 `json:"durationMs"`
	// Interrupted: the run was interrupted (exitCode 130; 143 when SIGTERM
	// ended it).
	Interrupted bool `json:"interrupted,omitempty"`
	// Updated are the checks an update rewrote, in the order of the
	// scripts and their lines.
	Updated []jsonUpdated `json:"updated,omitempty"`
	Scripts []jsonScript  `json:"scripts"`
}

type jsonUpdated struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

type jsonScript struct {
	File       string     `json:"file"`
	Passed     int        `json:"passed"`
	Failed     int        `json:"failed"`
	Error      string     `json:"error,omitempty"`
	DurationMS int64      `json:"durationMs"`
	Steps      []jsonStep `json:"steps"`
}

type jsonStep struct {
	Line       int    `json:"line"`
	Column     int    `json:"column"`
	Command    string `json:"command"`
	Text       string `json:"text"`
	Status     string `json:"status"`
	Message    string `json:"message,omitempty"`
	Expected   string `json:"expected,omitempty"`
	Actual     string `json:"actual,omitempty"`
	Response   string `json:"response,omitempty"`
	Diff       string `json:"diff,omitempty"`
	Output     string `json:"output,omitempty"`
	DurationMS int64  `json:"durationMs"`
}

// WriteJSON writes the report as one indented JSON object: the totals, the
// exit code, whether the run was interrupted, the checks an update rewrote
// (file, line, old and new expected value), and per script its steps with
// their status ("passed", "failed", "interrupted" for a step the interrupt
// cut short, "updated" for a failed check an update rewrote) and, for a
// failure, the message, expected and actual values
// and an excerpt of the last response. Control and invisible characters
// are written as \u escapes (see internal/text/termsafe).
func WriteJSON(w io.Writer, r *Report) error {
	p, f := r.Counts()
	doc := jsonReport{Passed: p, Failed: f, ExitCode: r.ExitCode(), DurationMS: r.Duration.Milliseconds(), Interrupted: r.Interrupted, Scripts: []jsonScript{}}
	for _, s := range r.Scripts {
		sp, sf := s.Counts()
		js := jsonScript{File: s.Name, Passed: sp, Failed: sf, DurationMS: s.Duration.Milliseconds(), Steps: []jsonStep{}}
		if s.Err != nil {
			js.Error = s.Err.Error()
		}
		for _, st := range s.Steps {
			status := "passed"
			switch {
			case st.Update != nil:
				status = "updated"
				doc.Updated = append(doc.Updated, jsonUpdated{File: s.Name, Line: st.Line, Old: st.Update.Old, New: st.Update.New})
			case st.Interrupted:
				status = "interrupted"
			case !st.Passed:
				status = "failed"
			}
			js.Steps = append(js.Steps, jsonStep{Line: st.Line, Column: st.Col, Command: st.Command, Text: st.Text, Status: status,
				Message: st.Message, Expected: st.Expected, Actual: st.Actual, Response: st.Response, Diff: st.Diff, Output: st.Output,
				DurationMS: st.Duration.Milliseconds()})
		}
		doc.Scripts = append(doc.Scripts, js)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
}
