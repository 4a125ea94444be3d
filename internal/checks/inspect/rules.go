package inspect

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/text/lazyre"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The criteria and their weights; the weights add up to 100.
const (
	CritDescriptions = "descriptions"
	CritInputSchemas = "input-schemas"
	CritOutput       = "output-schemas"
	CritAnnotations  = "annotations"
	CritTitles       = "titles"
	CritPrompts      = "prompts"
	CritIcons        = "icons"
	CritProtocol     = "protocol"
	CritElicitation  = "elicitation"
)

// Latest is the newest protocol version inspect knows.
const Latest = "2026-07-28"

// maxNamed is how many subjects a grouped finding names.
const maxNamed = 5

// Evaluate rates a server.
func Evaluate(s *Server) *Report {
	r := &Report{Counts: Counts{len(s.Tools), len(s.Prompts), len(s.Resources), len(s.Templates)}}
	if s.Info != nil {
		r.Protocol = s.Info.ProtocolVersion
		if s.Info.ServerInfo != nil {
			r.Server, r.Version = s.Info.ServerInfo.Name, s.Info.ServerInfo.Version
		}
	}
	r.Declares = declared(s)
	r.ClientCapabilities = s.Declared
	for _, m := range slices.Sorted(maps.Keys(s.ListErrors)) {
		r.Errors = append(r.Errors, Finding{Subject: m, Problem: "failed: " + s.ListErrors[m], Advice: "Fix the handler: the server declares the capability, so clients will ask for this list."})
	}
	r.Partial = len(r.Errors) > 0
	r.Elicit = elicitation(s)
	r.Criteria = []Criterion{
		descriptions(s),
		inputSchemas(s),
		outputSchemas(s),
		annotations(s),
		titles(s),
		prompts(s),
		icons(s, &r.IconsSeen),
		protocol(s),
		elicitationCriterion(r.Elicit),
	}
	var got, max float64
	for _, c := range r.Criteria {
		if c.Applies {
			got += c.Points
			max += float64(c.Weight)
		}
	}
	if max > 0 {
		r.Score = int(math.Round(100 * got / max))
	}
	return r
}

// perTool scores each tool from 0 to 1 and turns the average into points.
// Tools with the same problem are grouped into one finding.
type perTool struct {
	c      Criterion
	sum    float64
	n      int
	groups map[string]*group
	order  []string
}

type group struct {
	problem, advice string
	names           []string
}

func newPerTool(id, name string, weight int) *perTool {
	return &perTool{c: Criterion{ID: id, Name: name, Weight: weight, Applies: true}, groups: map[string]*group{}}
}

func (p *perTool) add(score float64) { p.sum += score; p.n++ }

// verdict is one tool's score on a criterion, with its problem and the
// advice for it when it has one.
type verdict struct {
	score           float64
	problem, advice string
}

// judge adds the verdict v on tool.
func (p *perTool) judge(tool string, v verdict) {
	p.add(v.score)
	if v.problem != "" {
		p.flag(tool, v.problem, v.advice)
	}
}

// flag records that tool has problem (grouped by problem text).
func (p *perTool) flag(tool, problem, advice string) {
	g, ok := p.groups[problem]
	if !ok {
		g = &group{problem: problem, advice: advice}
		p.groups[problem] = g
		p.order = append(p.order, problem)
	}
	g.names = append(g.names, tool)
}

func (p *perTool) done(emptyApplies bool) Criterion {
	if p.n == 0 {
		p.c.Applies = emptyApplies
		if emptyApplies {
			p.c.Points = 0
		}
		return p.c
	}
	p.c.Points = round1(float64(p.c.Weight) * p.sum / float64(p.n))
	for _, prob := range p.order {
		g := p.groups[prob]
		p.c.Findings = append(p.c.Findings, Finding{Subject: subject("tool", g.names), Problem: g.problem, Advice: g.advice})
	}
	return p.c
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// subject names one or a few subjects, and how many more.
func subject(kind string, names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("%s %q", kind, names[0])
	}
	shown := names
	if len(shown) > maxNamed {
		shown = shown[:maxNamed]
	}
	q := make([]string, len(shown))
	for i, n := range shown {
		q[i] = fmt.Sprintf("%q", n)
	}
	s := fmt.Sprintf("%d %ss: %s", len(names), kind, strings.Join(q, ", "))
	if len(names) > len(shown) {
		s += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return s
}

func descriptions(s *Server) Criterion {
	p := newPerTool(CritDescriptions, "Tool descriptions", 20)
	for _, t := range s.Tools {
		d := strings.TrimSpace(t.Description)
		switch {
		case d == "":
			p.add(0)
			p.flag(t.Name, "no description", "Say what the tool does, when to use it and what it returns; a model chooses tools by their descriptions.")
		case len(d) < 20 || strings.EqualFold(d, t.Name):
			p.add(0.5)
			p.flag(t.Name, "a description too short to choose the tool by", "Write a sentence or two: what it does, its effects, and whether it asks the user anything.")
		default:
			p.add(1)
		}
	}
	return p.done(true)
}

func inputSchemas(s *Server) Criterion {
	p := newPerTool(CritInputSchemas, "Input schemas", 15)
	for _, t := range s.Tools {
		p.judge(t.Name, inputSchemaVerdict(schemaargs.Map(t.InputSchema)))
	}
	return p.done(true)
}

// inputSchemaVerdict judges a tool's input schema m: an object, whose
// properties are all described, or that says it takes none.
func inputSchemaVerdict(m map[string]any) verdict {
	if m == nil || m["type"] != "object" {
		return verdict{0, `an input schema that is not {"type":"object",…}`, "Declare the arguments as a JSON Schema object with properties."}
	}
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		if m["additionalProperties"] == false {
			return verdict{score: 1}
		}
		return verdict{0.5, "an input schema without properties", `If the tool takes no arguments, say so with "additionalProperties": false; otherwise declare each argument with a type and a description.`}
	}
	described := 0
	for _, v := range props {
		pm, _ := v.(map[string]any)
		if d, _ := pm["description"].(string); strings.TrimSpace(d) != "" {
			described++
		}
	}
	v := verdict{score: float64(described) / float64(len(props))}
	if described < len(props) {
		v.problem, v.advice = "arguments without a description", "Describe every argument: its meaning, format and an example value."
	}
	return v
}

func outputSchemas(s *Server) Criterion {
	p := newPerTool(CritOutput, "Output schemas", 10)
	for _, t := range s.Tools {
		if schemaargs.Map(t.OutputSchema) != nil {
			p.add(1)
			continue
		}
		p.add(0)
		p.flag(t.Name, "no output schema", "Declare outputSchema and return structuredContent, so that clients can use the result without parsing text.")
	}
	return p.done(true)
}

// destructiveWords suggest that a tool changes or removes something.
var destructiveWords = lazyre.New(`(?i)(^|[^a-z])(delete|remove|rm|drop|destroy|purge|wipe|erase|reset|kill|terminate|truncate|overwrite|deploy|revoke)([^a-z]|$)`)

func annotations(s *Server) Criterion {
	p := newPerTool(CritAnnotations, "Annotations (read-only, destructive, idempotent)", 15)
	for _, t := range s.Tools {
		p.judge(t.Name, annotationVerdict(t.Annotations, destructiveWords.MatchString(t.Name)))
	}
	return p.done(true)
}

// annotationVerdict judges a tool's annotations a, looks saying whether
// its name looks destructive: they must say what it does, and not
// contradict its name.
func annotationVerdict(a *mcp.ToolAnnotations, looks bool) verdict {
	switch {
	case a == nil && looks:
		return verdict{0, "looks destructive but has no annotations", `Set "destructiveHint": true (and "idempotentHint" if repeating it is harmless), so that clients ask before running it.`}
	case a == nil:
		return verdict{0, "no annotations", `Set "readOnlyHint": true for tools that change nothing; otherwise "destructiveHint" and "idempotentHint".`}
	case a.ReadOnlyHint && looks:
		return verdict{0.5, "marked read-only but named like a tool that changes things", "Check the hint: a wrong readOnlyHint lets clients run it without asking."}
	case a.ReadOnlyHint:
		return verdict{score: 1}
	case a.DestructiveHint == nil && looks:
		return verdict{0.25, "looks destructive but does not say whether it is", `Set "destructiveHint": true explicitly.`}
	case a.DestructiveHint == nil:
		return verdict{0.5, "annotations that do not say whether the tool is destructive", `Set "destructiveHint" (clients assume true when it is missing) or "readOnlyHint": true.`}
	case !*a.DestructiveHint && looks:
		return verdict{0.5, `marked not destructive but named like a tool that removes things`, "Check the hint: clients skip confirmation for tools that say they are not destructive."}
	}
	return verdict{score: 1}
}

func titles(s *Server) Criterion {
	p := newPerTool(CritTitles, "Titles", 5)
	for _, t := range s.Tools {
		if t.Title != "" || (t.Annotations != nil && t.Annotations.Title != "") {
			p.add(1)
			continue
		}
		p.add(0)
		p.flag(t.Name, "no title", "Give a short human-readable title; clients show it instead of the name.")
	}
	return p.done(true)
}

func prompts(s *Server) Criterion {
	c := Criterion{ID: CritPrompts, Name: "Prompts", Weight: 10, Applies: true}
	if e, ok := s.ListErrors["prompts/list"]; ok && len(s.Prompts) == 0 {
		c.Findings = append(c.Findings, Finding{Subject: "prompts/list", Problem: "failed: " + e, Advice: "Fix the prompts/list handler; the server declares prompts."})
		return c
	}
	if len(s.Prompts) == 0 {
		c.Findings = append(c.Findings, Finding{Problem: "no prompts", Advice: "Offer prompts for the common tasks with this server, so that users can start them by name."})
		return c
	}
	var undescribed, badArgs []string
	for _, p := range s.Prompts {
		if strings.TrimSpace(p.Description) == "" {
			undescribed = append(undescribed, p.Name)
		}
		if slices.ContainsFunc(p.Arguments, undescribedArg) {
			badArgs = append(badArgs, p.Name)
		}
	}
	n := float64(len(s.Prompts))
	score := 1 - 0.5*float64(len(undescribed))/n - 0.5*float64(len(badArgs))/n
	c.Points = round1(float64(c.Weight) * score)
	if len(undescribed) > 0 {
		c.Findings = append(c.Findings, Finding{Subject: subject("prompt", undescribed), Problem: "no description", Advice: "Describe what the prompt is for."})
	}
	if len(badArgs) > 0 {
		c.Findings = append(c.Findings, Finding{Subject: subject("prompt", badArgs), Problem: "arguments without a description", Advice: "Describe each argument, so that clients can ask for it."})
	}
	return c
}

// undescribedArg reports whether a prompt's argument has no description.
func undescribedArg(a *mcp.PromptArgument) bool { return strings.TrimSpace(a.Description) == "" }

func icons(s *Server, seen *int) Criterion {
	c := Criterion{ID: CritIcons, Name: "Icons", Weight: 5, Applies: true}
	all := Icons(s)
	*seen = len(all)
	if len(all) == 0 {
		c.Findings = append(c.Findings, Finding{Problem: "no icons", Advice: "Give the server (serverInfo.icons) and its tools an icon, so that people recognize them."})
		return c
	}
	if s.Icons == nil {
		c.Points = float64(c.Weight)
		return c
	}
	ok := 0
	for _, ic := range s.Icons {
		if ic.OK {
			ok++
			continue
		}
		c.Findings = append(c.Findings, Finding{Subject: fmt.Sprintf("icon %s of %s", shorten(ic.Source, 80), ic.Owner), Problem: ic.Problem, Advice: "Serve icons over HTTPS (or as data: URIs) with an image content type, small enough to load quickly."})
	}
	if len(s.Icons) > 0 {
		c.Points = round1(float64(c.Weight) * float64(ok) / float64(len(s.Icons)))
	}
	return c
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func protocol(s *Server) Criterion {
	c := Criterion{ID: CritProtocol, Name: "Protocol version", Weight: 10, Applies: true}
	v := ""
	if s.Info != nil {
		v = s.Info.ProtocolVersion
	}
	var score float64
	switch {
	case v >= Latest:
		score = 1
	case v >= "2025-11-25":
		score = 0.7
	case v >= "2025-06-18":
		score = 0.4
	default:
		score = 0.2
	}
	var scopes []Finding
	if v >= Latest {
		scopes = cacheScopes(s.Sent.CacheScopes)
	}
	if len(scopes) > 0 {
		score /= 2
	}
	c.Points = round1(float64(c.Weight) * score)
	if v < Latest {
		c.Findings = append(c.Findings, Finding{Subject: "protocol " + orNone(v), Problem: "an older protocol version than " + Latest, Advice: "Speak " + Latest + ": questions come back as input_required results (multi round-trip requests), so the server can stay stateless."})
	}
	c.Findings = append(c.Findings, scopes...)
	return c
}

// listMethods are the methods of the lists whose results carry a
// cacheScope (protocol 2026-07-28).
var listMethods = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}

// ListsRefused are the findings of the protocol criterion on list results
// a strict client refuses (a cacheScope missing or wrong, protocol
// 2026-07-28), each with the list's method as its Subject: the one reading
// of them that the grade shares. None when the criterion is absent.
func (r *Report) ListsRefused() []Finding {
	var out []Finding
	for _, c := range r.Criteria {
		if c.ID != CritProtocol {
			continue
		}
		for _, f := range c.Findings {
			if slices.Contains(listMethods, f.Subject) {
				out = append(out, f)
			}
		}
	}
	return out
}

// cacheScopes are the findings on the cacheScope of the list results
// (sent, by method; see catalog.Sent.CacheScopes) of a server of protocol
// 2026-07-28: each list result must carry one, "public" or "private", and
// a strict client (the TypeScript SDK's) refuses a list without.
func cacheScopes(sent map[string]json.RawMessage) []Finding {
	var out []Finding
	for _, m := range listMethods {
		raw, ok := sent[m]
		if !ok {
			continue
		}
		var scope string
		if json.Unmarshal(raw, &scope) == nil && (scope == "public" || scope == "private") {
			continue
		}
		what := "no cacheScope"
		switch {
		case raw == nil:
		case string(raw) == `""`:
			what = `cacheScope ""`
		default:
			what = "cacheScope " + runecut.Clip(string(raw), 60)
		}
		out = append(out, Finding{Subject: m,
			Problem: fmt.Sprintf(`the result has %s: protocol %s requires "cacheScope": "public" or "private" on every %s result; a strict client (the TypeScript SDK's) refuses this one`, what, Latest, m),
			Advice:  fmt.Sprintf(`Send "cacheScope": "public" with "ttlMs" on every %s result ("private" when the list differs by who asks).`, m)})
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// askWords suggest that a tool asks the user.
var askWords = lazyre.New(`(?i)\b(asks?|asking|confirm(s|ation)?|choose|chooses|select|approv(e|al)|elicit\w*|prompts? the user|the user (picks|chooses|decides))\b`)

// saysItAsks reports whether a tool's description or the descriptions in
// its input schema say that it asks the user.
func saysItAsks(t *mcp.Tool) bool {
	if askWords.MatchString(t.Description) {
		return true
	}
	b, _ := json.Marshal(t.InputSchema)
	return len(b) < 64<<10 && askWords.Match(b) && strings.Contains(strings.ToLower(string(b)), "user")
}

func elicitation(s *Server) Elicitation {
	e := Elicitation{Probed: s.Probes != nil, Tools: []ElicitingTool{}, Prompts: askingPrompts(s)}
	asked := map[string][]Question{}
	for _, p := range s.Probes {
		if len(p.Questions) > 0 && p.Tool != "" {
			asked[p.Tool] = p.Questions
		}
	}
	sort.Slice(e.Prompts, func(i, j int) bool { return e.Prompts[i].Name < e.Prompts[j].Name })
	for _, t := range s.Tools {
		said := saysItAsks(t)
		if said || asked[t.Name] != nil {
			e.Tools = append(e.Tools, ElicitingTool{Name: t.Name, Said: said, Asked: asked[t.Name]})
		}
	}
	sort.Slice(e.Tools, func(i, j int) bool { return e.Tools[i].Name < e.Tools[j].Name })
	return e
}

// askingPrompts lists the prompts a probe saw ask, once per probe that
// did.
func askingPrompts(s *Server) []ElicitingTool {
	var out []ElicitingTool
	for _, pr := range s.Prompts {
		for _, p := range s.Probes {
			if p.Prompt == pr.Name && len(p.Questions) > 0 {
				out = append(out, ElicitingTool{Name: pr.Name, Said: askWords.MatchString(pr.Description), Asked: p.Questions})
			}
		}
	}
	return out
}

func elicitationCriterion(e Elicitation) Criterion {
	c := Criterion{ID: CritElicitation, Name: "Questions to the user", Weight: 10}
	var silent, silentPrompts []string
	asking := 0
	for _, t := range e.Tools {
		if t.Asked == nil {
			continue
		}
		asking++
		if !t.Said {
			silent = append(silent, t.Name)
		}
	}
	for _, p := range e.Prompts {
		asking++
		if !p.Said {
			silentPrompts = append(silentPrompts, p.Name)
		}
	}
	if asking == 0 {
		return c // nothing seen asking: not applicable
	}
	c.Applies = true
	c.Points = round1(float64(c.Weight) * float64(asking-len(silent)-len(silentPrompts)) / float64(asking))
	if len(silent) > 0 {
		c.Findings = append(c.Findings, Finding{Subject: subject("tool", silent), Problem: "asks the user but its description does not say so", Advice: "Say in the description what the tool asks and why, so that clients and users are not surprised."})
	}
	if len(silentPrompts) > 0 {
		c.Findings = append(c.Findings, Finding{Subject: subject("prompt", silentPrompts), Problem: "asks the user but its description does not say so", Advice: "Say in the prompt's description what it asks, so that users are not surprised."})
	}
	return c
}

// declared names the capabilities the server declared, every one as it
// sent it (those the go-sdk does not know too, such as tasks): tools,
// prompts, resources, completions and logging first, in that order, then
// the others by name, each experimental capability and extension named
// (experimental NAME, extension NAME). A capability is named with the
// members it turns on (true, or an object): "resources (subscribe,
// listChanged)", "tasks (cancel, list, requests)".
func declared(s *Server) []string {
	out := []string{}
	caps, err := s.Listing.Capabilities()
	if err != nil {
		return out
	}
	basic := []string{"tools", "prompts", "resources", "completions", "logging"}
	for _, name := range basic {
		if on(caps[name]) {
			out = append(out, withFlags(name, caps[name]))
		}
	}
	var rest []string
	for _, name := range slices.Sorted(maps.Keys(caps)) {
		v := caps[name]
		switch {
		case slices.Contains(basic, name) || !on(v):
		case name == "experimental" || name == "extensions":
			m, _ := v.(map[string]any)
			for _, sub := range slices.Sorted(maps.Keys(m)) {
				rest = append(rest, strings.TrimSuffix(name, "s")+" "+sub) // experimental x, extension y
			}
		default:
			rest = append(rest, withFlags(name, v))
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// on reports whether a capability, or a member of one, is turned on: true,
// or an object (of settings, maybe none).
func on(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		return true
	}
	return false
}

// withFlags names a capability with its members that are on:
// "resources (subscribe, listChanged)" (subscribe and listChanged first,
// the others by name), or "tools" when none is.
func withFlags(name string, v any) string {
	m, _ := v.(map[string]any)
	var flags []string
	for _, f := range []string{"subscribe", "listChanged"} {
		if on(m[f]) {
			flags = append(flags, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(m)) {
		if f != "subscribe" && f != "listChanged" && on(m[f]) {
			flags = append(flags, f)
		}
	}
	if len(flags) == 0 {
		return name
	}
	return name + " (" + strings.Join(flags, ", ") + ")"
}
