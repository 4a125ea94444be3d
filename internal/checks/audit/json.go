package audit

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/askback/askback/internal/text/termsafe"
)

// MarshalJSON renders a result with its rule.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		Rule  int    `json:"rule"`
		ID    string `json:"id"`
		Title string `json:"title"`
		*plain
	}{r.Rule.N, r.Rule.ID, r.Rule.Title, (*plain)(r)})
}

// score is the score of a JSON report. Percent is null when nothing was
// checked, and NothingChecked says why.
type score struct {
	Passed         int      `json:"passed"`
	Failed         int      `json:"failed"`
	Applicable     int      `json:"applicable"`
	Percent        *float64 `json:"percent"`
	Incomplete     int      `json:"incomplete"`
	NothingChecked string   `json:"nothingChecked,omitempty"`
}

// WriteJSON renders the report as indented JSON with the score, control
// and invisible characters written as \u escapes (see internal/text/termsafe).
func (r *Report) WriteJSON(w io.Writer) error {
	p, f, a := r.Score()
	sc := score{Passed: p, Failed: f, Applicable: a, Incomplete: r.Unchecked(), NothingChecked: r.NothingChecked()}
	if pct, ok := r.Percent(); ok {
		sc.Percent = &pct
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		*Report
		Score score `json:"score"`
	}{Report: r, Score: sc})
	if err != nil {
		return err
	}
	_, err = w.Write(termsafe.JSON(b.Bytes()))
	return err
}
