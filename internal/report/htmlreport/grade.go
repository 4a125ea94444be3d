package htmlreport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/askback/askback/internal/checks/grade"
)

// gradePage is the body of a `grade` report.
type gradePage struct {
	Letter     string
	Score      int
	ScoreBar   meter
	Evidence   string
	Checked    int
	Caps       []string
	Categories []gradeCategoryView
}

type gradeCategoryView struct {
	Name             string
	Earned, Of, Left string
	Items            []gradeItemView
}

type gradeItemView struct {
	ID, Title, Status, Points, Why string
}

// gradeTitles are the categories as the page names them.
var gradeTitles = map[string]string{grade.Conformance: "Conformance", grade.Asking: "Asking", grade.Description: "Description", grade.Safety: "Safety"}

// WriteGrade writes the page of `grade`: the letter and the score, the
// caps that lowered the letter, and each category's checks with their
// status, points and what each rests on; a check not made says so.
func WriteGrade(w io.Writer, m Meta, g *grade.Grade) error {
	t := text{m.Hide}
	name := t.serverName(g.Server, g.Version)
	body := gradePage{Letter: g.Letter, Score: g.Score, ScoreBar: newMeter(float64(g.Score)/100, 300), Evidence: g.Evidence, Checked: g.Checked}
	for _, c := range g.Caps {
		body.Caps = append(body.Caps, t.line(c))
	}
	for _, cat := range grade.Categories() {
		body.Categories = append(body.Categories, t.gradeCategory(g, cat))
	}
	verdict := "passed"
	switch {
	case g.Letter == "D" || g.Letter == "F":
		verdict = "failed"
	case g.Partial():
		verdict = "incomplete"
	}
	return render(w, m, "grade", fmt.Sprintf("grade %s (%d/100)", g.Letter, g.Score), fmt.Sprintf("%s, protocol %s", name, t.line(g.Protocol)), verdict, body)
}

// gradeCategory is the view of the category cat of g: each check with
// its points when it was made, the points earned of those checked, and
// those left unchecked.
func (t text) gradeCategory(g *grade.Grade, cat string) gradeCategoryView {
	cv := gradeCategoryView{Name: gradeTitles[cat]}
	var earned, checked, total float64
	for _, it := range g.Items {
		if it.Category != cat {
			continue
		}
		total += it.Weight
		iv := gradeItemView{ID: t.line(it.ID), Title: t.line(it.Title), Status: string(it.Status), Why: t.line(it.Why)}
		if it.Status != grade.NotChecked {
			checked += it.Weight
			earned += it.Points
			iv.Points = fmt.Sprintf("%s/%s", num(round2(it.Points)), num(round2(it.Weight)))
		}
		cv.Items = append(cv.Items, iv)
	}
	cv.Earned, cv.Of = num(round2(earned)), num(round2(checked))
	if checked < total {
		cv.Left = num(round2(total - checked))
	}
	return cv
}

// num writes f in as few digits as read back the same.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// round2 rounds f to the hundredth.
func round2(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 2, 64), 64)
	return v
}
