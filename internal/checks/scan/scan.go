// Package scan reads what MCP servers tell the model (tool names, titles
// and descriptions, the descriptions and other strings of their input and
// output schemas, prompts and their arguments, resources and templates,
// the server's instructions) and reports what attacks the model or hides
// from the person: hidden characters and markup, instructions to ignore
// other instructions or to keep something from the user, requests to read
// secrets, places to send data to, parameters that carry conversation
// content out, descriptions that dictate how other tools are used, tools
// that run commands, delete or spend without annotations that say so, and
// names that collide across servers.
//
// Each rule has a stable id (MCPS001, …), a severity, and each finding a
// one-line reason and the JSON path of the text it is about, in the
// catalog that was scanned. The scan only reads; it needs no connection,
// and its rules are tested on plain values (the corpus of attacks in
// testdata) and on the catalogs of real servers.
package scan

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/text/runecut"
)

// Server is one server of a scan: what it offers (Catalog, as a client
// listed it or a file holds it: catalog.List, catalog.ReadFile) and the
// name findings give it (a profile's name; the server's own name when
// alone). The JSON paths of findings point into the catalog as a file
// writes it ($.server.name, $.instructions, $.tools[0].description).
// The catalog's Declared are the client capabilities the client that
// listed it declared: a server may offer more to a client that declares
// more.
type Server struct {
	Name    string
	Catalog *catalog.Listing
}

// Scan runs every rule over the catalogs of servers, which a client would
// offer the model together: names that collide are looked for across
// them, and a description that speaks of another server's tool is
// shadowing. A nil catalog counts as an empty one.
func Scan(servers ...Server) *Report { return scan(false, servers...) }

// scan is Scan; unfiltered runs every expression on every sentence,
// without the cheap literal tests that rule sentences out before it (for
// the tests that check those tests drop no finding).
func scan(unfiltered bool, servers ...Server) *Report {
	s := &scanner{servers: servers, seen: map[findingKey]int{}, unfiltered: unfiltered}
	for i := range servers {
		if servers[i].Catalog == nil {
			servers[i].Catalog = &catalog.Listing{}
		}
	}
	s.ownNames = make([]nameSet, len(servers))
	sizes := map[ownerKey][]int{}
	for i, srv := range servers {
		s.ownNames[i] = ownNames(srv.Catalog)
		texts(srv.Catalog, func(t *text) {
			k := ownerKey{i, owner(t.subject)}
			sizes[k] = append(sizes[k], len(t.s))
		})
	}
	s.share = shares(sizes, phraseBudget)
	for i := range servers {
		s.server = i
		s.scanServer(servers[i].Catalog)
	}
	s.collisions()
	return s.report()
}

// scanner holds the state of one scan.
type scanner struct {
	servers  []Server
	server   int // the server being scanned
	ownNames []nameSet
	findings []Finding
	seen     map[findingKey]int // index in findings of a rule's finding on a path
	spent    int                // bytes read by the phrase rules (readable)
	share    map[ownerKey]int   // the most the phrase rules read of one text, by its owner (shares)
	// unread and unreadBytes count the texts of the server being scanned
	// that the phrase rules did not read whole, and the bytes left.
	unread, unreadBytes int
	// unfiltered runs the expressions without the literal tests that
	// rule sentences out first (see scan).
	unfiltered bool
	// inputs are the input parameters of each tool of the server being
	// scanned, by the subject of its texts (`tool "add"`), their names
	// as normName makes them (see scanner.toolInput).
	inputs map[string]map[string]bool
}

type findingKey struct {
	rule   string
	server int
	path   string
}

// add records a finding of rule r on t. One finding is kept per rule and
// path: a second one on the same text raises its severity to the higher
// of the two and counts the occurrence.
func (s *scanner) add(r Rule, sev Severity, t *text, reason, excerpt string) {
	path := t.where()
	k := findingKey{r.ID, s.server, path}
	if i, ok := s.seen[k]; ok {
		f := &s.findings[i]
		f.more++
		if sev > f.Severity {
			f.Severity, f.Reason, f.Excerpt = sev, reason, clip(excerpt)
		}
		return
	}
	s.seen[k] = len(s.findings)
	s.findings = append(s.findings, Finding{
		Rule: r.ID, Name: r.Name, Severity: sev, Server: s.servers[s.server].Name,
		Subject: t.subject, Path: path, Reason: reason, Excerpt: clip(excerpt),
	})
}

// addDestination records a finding of rule r on t about the address
// dest, as add does, and names dest in it: a text that sends to several
// addresses is one finding that names them all (see Finding.also). An
// order that is negated (see negatedOrder) is none.
func (s *scanner) addDestination(r Rule, sev Severity, t *text, dest, reason, excerpt string) {
	if negatedOrder(excerpt, dest) {
		return // "Never send the user's password to https://…"
	}
	if sev > Low && atUsersRequest(excerpt) {
		// "Save the summary to https://… when the user asks you to"
		sev, reason = Low, fmt.Sprintf("the tool sends data to %s at the user's request: check that this is what it is for", clipWords(dest))
	}
	s.add(r, sev, t, reason, excerpt)
	dest = clipWords(dest) // as a reason names it
	f := &s.findings[s.seen[findingKey{r.ID, s.server, t.where()}]]
	for _, d := range f.dests {
		if d == dest {
			return
		}
	}
	f.dests = append(f.dests, dest)
}

// hasDestination reports whether the finding of rule r on t names the
// address dest: whether an order to send there was recorded, not only
// read (a negated one is not: see addDestination).
func (s *scanner) hasDestination(r Rule, t *text, dest string) bool {
	i, ok := s.seen[findingKey{r.ID, s.server, t.where()}]
	if !ok {
		return false
	}
	dest = clipWords(dest)
	for _, d := range s.findings[i].dests {
		if d == dest {
			return true
		}
	}
	return false
}

// scanServer runs the rules that read one catalog. What the phrase
// rules could not read for the scan's budget is one finding for the
// server, of high severity: a scan that did not read a text cannot say
// it is safe.
func (s *scanner) scanServer(c *catalog.Listing) {
	s.unread, s.unreadBytes = 0, 0
	s.inputs = toolInputs(c)
	texts(c, s.textRules)
	for i, tool := range c.Tools {
		if tool == nil {
			continue
		}
		s.sideChannels(i, tool)
		s.agency(i, tool)
	}
	if s.unread > 0 {
		s.add(RuleOversized, High, &text{subject: "server", path: "$"},
			fmt.Sprintf("%d text(s) of %d bytes in all were not read for phrases: the scan reads %d MiB of text, and what it did not read may hold anything", s.unread, s.unreadBytes, phraseBudget>>20), "")
	}
}

// textRules runs the rules that read one text.
func (s *scanner) textRules(t *text) {
	spelled := s.hiddenChars(t)
	var plain string
	switch t.kind {
	case kindURI:
		s.uriHidden(t)
		return
	case kindName:
		s.confusableName(t)
		var ok bool
		if plain, ok = nameAsWords(t.s); !ok {
			return
		}
	default:
		plain = fold(t.s)
	}
	if spelled != "" {
		// What tag characters spell, the model reads: the rules read it
		// too.
		plain += "\n" + fold(spelled)
	}
	plain, ok := s.readable(t, plain)
	if !ok {
		return
	}
	s.phraseRules(t, plain)
}

// nameAsWords is the name n read as words, folded, for the phrase rules:
// a name of several words says what it says
// (ignore_previous_instructions). It is false for a name of fewer than
// three words.
func nameAsWords(n string) (string, bool) {
	if strings.ContainsAny(n, " \t\n") {
		return fold(n), true
	}
	words := nameWords(n)
	if len(words) < 3 {
		return "", false
	}
	return strings.Join(words, " "), true
}

// phraseRules runs the rules that read the phrases of t, plain being
// what they read of it (folded, within the scan's budget).
func (s *scanner) phraseRules(t *text, plain string) {
	p := s.newProse(plain)
	if t.kind == kindProse {
		s.mixedWords(t)
		s.markup(t, p)
	}
	if u := unescaped(plain); u != plain {
		// The model reads an HTML entity as the character it stands
		// for (user&#39;s): the rules that read orders do too.
		plain, p = u, s.newProse(u)
	}
	orig := p
	// The orders to the model are read in what the text spells decoded
	// too.
	b64 := p
	if d := decoded(plain, false); d != plain {
		b64 = s.newProse(d)
	}
	s.modelDirected(t, s.newProse(decoded(plain, true)))
	s.destinations(t, b64)
	s.squeezed(t, plain)
	if t.kind == kindProse {
		s.shadowing(t, orig)
	}
}

// unescaped is plain (folded) with its HTML entities (&#39;, &apos;,
// &agrave;) replaced by the characters they stand for, folded again.
func unescaped(plain string) string {
	if !strings.Contains(plain, "&") {
		return plain
	}
	if u := html.UnescapeString(plain); u != plain {
		return fold(u)
	}
	return plain
}

// newProse is newProse(plain), unfiltered when the scan is.
func (s *scanner) newProse(plain string) *prose {
	p := newProse(plain)
	p.unfiltered = s.unfiltered
	return p
}

// Bounds of the rules that read phrases, whose cost grows with the text:
// a scan reads phraseBudget bytes of text in all, each text whole while
// the budget lasts; a text longer than longText is a finding of its own
// (bulk that no person reads). Hidden characters are looked for in every
// byte.
const (
	longText     = 32 << 10
	phraseBudget = 2 << 20
)

// readable returns the part of plain (t folded) that the phrase rules
// read: all of it when it is within the scan's fair share and budget,
// else its beginning and end as far as they go, false when nothing is
// left; what is not read is counted for the server's finding (MCPS009).
func (s *scanner) readable(t *text, plain string) (string, bool) {
	if len(t.s) > longText {
		s.add(RuleOversized, Medium, t, fmt.Sprintf("%d bytes: a text this long buries what it says in bulk that no person reads, while the model reads all of it", len(t.s)), "")
	}
	share, ok := s.share[ownerKey{s.server, owner(t.subject)}]
	if !ok {
		share = math.MaxInt
	}
	limit := min(share, phraseBudget-s.spent)
	if limit <= 0 {
		s.unread++
		s.unreadBytes += len(plain)
		return "", false
	}
	if len(plain) <= limit {
		s.spent += len(plain)
		return plain, true
	}
	s.unread++
	s.unreadBytes += len(plain) - limit
	s.spent += limit
	head := runecut.Prefix(plain, limit-limit/4)
	return head + "\n" + runecut.Suffix(plain, limit-len(head)), true
}

// ownerKey names what a text belongs to in a scan: a server (its index)
// and the tool, prompt, resource or template (or the server itself).
type ownerKey struct {
	server int
	owner  string
}

// owner is what a text of subject belongs to: a tool's parameter is the
// tool's (`tool "x" parameter "q"` is `tool "x"`'s).
func owner(subject string) string {
	if i := strings.Index(subject, `" parameter `); i >= 0 {
		return subject[:i+1]
	}
	return subject
}

// shares divides budget fairly between owners, then each owner's share
// between its texts (see fairShare): the most the phrase rules read of a
// text of each owner. Many texts of one tool (a schema of 300,000 enum
// values) then take only that tool's share, not every other tool's.
func shares(sizes map[ownerKey][]int, budget int) map[ownerKey]int {
	totals := make([]int, 0, len(sizes))
	for _, ss := range sizes {
		total := 0
		for _, n := range ss {
			total += n
		}
		totals = append(totals, total)
	}
	perOwner := fairShare(totals, budget)
	out := make(map[ownerKey]int, len(sizes))
	for k, ss := range sizes {
		out[k] = fairShare(ss, perOwner) // every text whole when they fit
	}
	return out
}

// fairShare is the most the phrase rules read of one text so that texts
// of the sizes given fit in budget: every text whole when they all fit,
// else every text up to the same share, the largest cut to it. One long
// text (or a few) then leaves the budget to the others: padding a
// description does not hide the next tool's.
func fairShare(sizes []int, budget int) int {
	sort.Ints(sizes)
	for i, size := range sizes {
		if share := budget / (len(sizes) - i); size > share {
			return share
		}
		budget -= size
	}
	return math.MaxInt
}

// headTail is s cut to its first 24 KiB and last 8 KiB, at rune
// boundaries, with a line break between: what the rules about one tool's
// parameters read of its description (the phrase rules read it whole).
func headTail(s string) string {
	const maxHead, maxTail = 24 << 10, 8 << 10
	if len(s) <= maxHead+maxTail {
		return s
	}
	return runecut.Prefix(s, maxHead) + "\n" + runecut.Suffix(s, maxTail)
}

// toolInputs returns the input parameters of each tool of c, by the
// subject of its texts, their names as normName makes them.
func toolInputs(c *catalog.Listing) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, tool := range c.Tools {
		if tool == nil {
			continue
		}
		props, _ := schemaargs.Map(tool.InputSchema)["properties"].(map[string]any)
		if len(props) == 0 {
			continue
		}
		names := map[string]bool{}
		for n := range props {
			if k := normName(n); k != "" {
				names[k] = true
			}
		}
		out[fmt.Sprintf("tool %q", tool.Name)] = names
	}
	return out
}

// toolInput reports whether the slot named name (see slotName) of an
// address in a text of t's tool is one of that tool's input parameters
// ({email} of a tool that takes "email"): the tool's input, which it
// says where it puts, not the user's data the model is told to add. A
// slot for the conversation or a secret of the conversation's
// ({chat_history}) is none, whatever the tool takes.
func (s *scanner) toolInput(t *text, name string) bool {
	params := s.inputs[t.subject]
	if params == nil || name == "" || slotConversation.MatchString(name) || cue(name) != "" {
		return false
	}
	return params[normName(name)]
}
