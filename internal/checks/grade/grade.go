// Package grade turns what mcp-tester checks of a server into one grade:
// a letter and a score from 0 to 100, explained check by check, and an
// SVG badge for a README.
//
// The checks come from four places: the protocol conformance the tester
// can observe (initialize, the lists, ping, tool schemas and names), the
// audit's rules of asking (internal/checks/audit), inspect's criteria of how
// well the server describes itself (internal/checks/inspect), and the scan of
// what it tells the model (internal/checks/scan). A grade is only as good as its
// evidence: a check that could not be made (no tool asked a question, the
// audit was not run, the icons were not fetched) is "not checked". It
// never counts as passed: the score is made of the checks that were made,
// and the grade says that its evidence is partial and what is missing.
package grade

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/text/optname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	Pass       Status = "pass"
	Partial    Status = "partial" // some of its points
	Fail       Status = "fail"
	NotChecked Status = "not checked"
)

// The categories of checks, with the points each is worth in all.
const (
	Conformance = "conformance"
	Asking      = "asking"
	Description = "description"
	Safety      = "safety"
)

// categoryWeights are the points of each category: they add up to 100.
var categoryWeights = map[string]float64{Conformance: 25, Asking: 30, Description: 15, Safety: 30}

// Categories lists the categories in the order they are reported.
func Categories() []string { return []string{Conformance, Asking, Description, Safety} }

// Item is one check of the grade.
type Item struct {
	Category string `json:"category"`
	// ID names the check: conformance/lists, audit/state-tamper,
	// inspect/descriptions, scan/MCPS001.
	ID    string `json:"id"`
	Title string `json:"title"`
	// Status is the outcome; Points what it earned of Weight (zero when
	// not checked, and then not counted).
	Status Status  `json:"status"`
	Weight float64 `json:"weight"`
	Points float64 `json:"points"`
	// Why says what the outcome rests on: what failed, or why it was not
	// checked.
	Why string `json:"why,omitempty"`
}

// MarshalJSON writes the item with its points to the hundredth.
func (it Item) MarshalJSON() ([]byte, error) {
	type plain Item
	p := plain(it)
	p.Weight, p.Points = round2(p.Weight), round2(p.Points)
	return json.Marshal(p)
}

// Grade is a server's grade.
type Grade struct {
	Server   string `json:"server"`
	Version  string `json:"version,omitempty"`
	Protocol string `json:"protocol"`
	// Letter is A to F; Score the points earned of those checked, from 0
	// to 100.
	Letter string `json:"letter"`
	Score  int    `json:"score"`
	// Evidence is "complete" when every check was made, else "partial";
	// Checked is the share of the points that were checked, in percent.
	Evidence string `json:"evidence"`
	Checked  int    `json:"checked"`
	// Caps say why the letter is lower than the score alone would give.
	Caps  []string `json:"caps,omitempty"`
	Items []Item   `json:"items"`
	// ClientCapabilities are what the client that listed the server
	// declared (as inspect's and scan's reports say): a server may offer
	// more to a client that declares more.
	ClientCapabilities []string `json:"clientCapabilities"`
}

// Partial reports whether some check was not made.
func (g *Grade) Partial() bool { return g.Evidence != "complete" }

// Observed is the protocol conformance the tester saw of the server.
type Observed struct {
	// Protocol is the version negotiated.
	Protocol string
	// Declared lists the lists the server declared ("tools/list", …);
	// ListErrors those of them that failed, with why.
	Declared   []string
	ListErrors map[string]string
	// PingErr is why ping failed; empty when it was answered.
	PingErr string
	// Tools are the server's tools.
	Tools []*mcp.Tool
}

// Evidence is everything a grade is made of. A nil report was not made;
// its Why says why.
type Evidence struct {
	Server, Version string
	// ClientCapabilities are what the client that listed the server
	// declared (catalog.Listing's Declared).
	ClientCapabilities []string
	Observed           Observed
	Audit              *audit.Report
	// AuditWhy says why the audit was not run (it is then not checked).
	AuditWhy string
	Inspect  *inspect.Report
	// IconsChecked says that the icons were fetched (inspect's icon
	// criterion is otherwise not checked).
	IconsChecked bool
	Scan         *scan.Report
	// Name names one of the caller's options in its terms, for the items
	// whose Why points at it (a command line's flag); nil, or "", names it
	// as this package does ([Option.String]).
	Name optname.Namer[Option]
}

// Option is one of the caller's choices an item's Why points at as the
// way to check it; [Evidence.Name] words it for the caller.
type Option int

// The options an item's Why points at.
const (
	// OptionCheckIcons is fetching the icons (inspect.CheckIcons), which
	// [Evidence.IconsChecked] says was done.
	OptionCheckIcons Option = iota + 1
)

// String names o in the Go API's terms.
func (o Option) String() string {
	switch o {
	case OptionCheckIcons:
		return "inspect.CheckIcons"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// Compute grades a server from the evidence.
func Compute(e Evidence) *Grade {
	g := &Grade{Server: e.Server, Version: e.Version, Protocol: e.Observed.Protocol, ClientCapabilities: e.ClientCapabilities}
	if g.ClientCapabilities == nil {
		g.ClientCapabilities = []string{}
	}
	var items []Item
	items = append(items, weigh(Conformance, conformance(e.Observed, e.Inspect))...)
	items = append(items, weigh(Asking, asking(e.Audit, e.AuditWhy))...)
	items = append(items, weigh(Description, description(e.Inspect, e.IconsChecked, e.Name.Word(OptionCheckIcons)))...)
	items = append(items, weigh(Safety, safety(e.Scan))...)
	g.Items = items
	var earned, checked, total float64
	for _, it := range items {
		total += it.Weight
		if it.Status != NotChecked {
			checked += it.Weight
			earned += it.Points
		}
	}
	if checked > 0 {
		g.Score = int(math.Round(100 * earned / checked))
	}
	if total > 0 {
		g.Checked = int(math.Floor(100 * checked / total))
	}
	g.Evidence = "complete"
	if checked < total {
		g.Evidence = "partial"
	}
	g.Letter = letter(g.Score)
	if checked == 0 {
		g.Letter = "F"
		g.Caps = append(g.Caps, "nothing could be checked")
	}
	g.cap(e)
	return g
}

// letter is the letter of a score.
func letter(score int) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}

// securityRules are the audit's rules whose failure lets one user's
// question be answered by another, a tampered or replayed state through,
// a secret or a credential out: a server that fails one is graded D at
// best.
var securityRules = map[string]bool{
	audit.RuleTamper.ID: true, audit.RuleReplay.ID: true, audit.RuleUser.ID: true,
	audit.RuleSecrets.ID: true, audit.RuleURL.ID: true,
}

// cap lowers the letter for what no score makes up for, and says why.
func (g *Grade) cap(e Evidence) {
	limit := func(most, why string) {
		if g.Letter < most { // "A" < "B": A is better
			g.Letter = most
		}
		g.Caps = append(g.Caps, fmt.Sprintf("%s at best: %s", most, why))
	}
	if e.Scan != nil && e.Scan.Counts.High > 0 {
		limit("F", fmt.Sprintf("the scan found %d high-severity finding(s) in what the server tells the model", e.Scan.Counts.High))
	}
	var security, other []string
	for _, it := range g.Items {
		if it.Category != Asking || it.Status != Fail {
			continue
		}
		if securityRules[strings.TrimPrefix(it.ID, "audit/")] {
			security = append(security, it.ID)
		} else {
			other = append(other, it.ID)
		}
	}
	if len(security) > 0 {
		limit("D", "a rule of asking that keeps users and their secrets apart failed ("+strings.Join(security, ", ")+")")
	} else if len(other) > 0 {
		limit("C", "a rule of asking failed ("+strings.Join(other, ", ")+")")
	}
	var broken []string
	for _, it := range g.Items {
		if it.Category == Conformance && it.Status == Fail {
			broken = append(broken, it.ID)
		}
	}
	if len(broken) > 0 {
		limit("C", "the server broke the protocol where the tester could see it ("+strings.Join(broken, ", ")+")")
	}
}

// weigh shares a category's points among its checks, each by its
// relative weight (Item.Weight on the way in), and scales the points
// earned to match.
func weigh(category string, items []Item) []Item {
	var sum float64
	for _, it := range items {
		sum += it.Weight
	}
	for i := range items {
		items[i].Category = category
		if sum == 0 {
			continue
		}
		share := categoryWeights[category] * items[i].Weight / sum
		frac := 0.0
		if items[i].Weight > 0 {
			frac = items[i].Points / items[i].Weight
		}
		items[i].Weight = share
		items[i].Points = share * frac
	}
	return items
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// fraction is a check worth one unit that earned frac of it.
func fraction(id, title string, frac float64, why string) Item {
	st := Pass
	switch {
	case frac <= 0:
		st, frac = Fail, 0
	case frac < 1:
		st = Partial
	}
	return Item{ID: id, Title: title, Status: st, Weight: 1, Points: frac, Why: why}
}

// notChecked is a check worth one unit that was not made.
func notChecked(id, title, why string) Item {
	return Item{ID: id, Title: title, Status: NotChecked, Weight: 1, Why: why}
}
