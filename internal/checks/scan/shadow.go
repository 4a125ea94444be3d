package scan

import (
	"fmt"
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/lazyre"
)

var (
	// otherTools speaks of every other tool, or another server's.
	otherTools = sync.OnceValue(func() []phrase {
		return []phrase{
			newPhrase("must|should|shall|need|required|has to|have to", `\b(?:all|any|every|each)\s+(?:other\s+)?(?:tools?|functions?)\b[^.!?\n]{0,60}?\b(?:must|should|shall|needs?\s+to|are\s+required\s+to|has\s+to|have\s+to)\b`),
			newPhrase("when", `\bwhen(?:ever)?\s+(?:using|calling|invoking)\s+(?:any|another|other|a\s+different)\s+tools?\b`),
			newPhrase("other|another", `\b(?:other|another)\s+(?:servers?'?s?|mcp\s+servers?'?s?)\s+tools?\b`),
		}
	})
	// quotedTool is a quoted name followed by "tool": 'Query Docs' tool.
	quotedTool = lazyre.New("[`'\"‘“]([A-Za-z][A-Za-z0-9_. -]{0,62}[A-Za-z0-9])[`'\"’”]\\s+(?i:tool|function)\\b")
	// toolQuoted is "tool" followed by a quoted or identifier-shaped name.
	toolQuoted = lazyre.New("(?i)\\b(?:tool|function)\\s+(?:[`'\"‘“]([A-Za-z][A-Za-z0-9_.-]{0,63})[`'\"’”]|([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+))")
	// calledName is an identifier-shaped name after a verb that calls it:
	// call send_email, use `sendEmail`.
	calledName = lazyre.New("\\b(?i:call|calls|calling|use|uses|using|invoke|invokes|invoking|run|runs|running|via)\\s+(?i:the\\s+)?[`'\"]?([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)\\b")
	// identifierTool is an identifier-shaped name followed by "tool".
	identifierTool = lazyre.New("\\b([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)[`'\"]?\\s+(?i:tool|function)\\b")
	// directive tells the model what to do.
	directive = lazyre.New(`(?i)\b(?:must|should|shall|always|never|instead|only|make\s+sure|ensure|required?|requires|before|after|when|whenever|do\s+not|don'?t|remember|important|add|set|change|replace|redirect|bcc|cc)\b`)
	// shadowCue changes what another tool does: its recipients, its
	// arguments, which tool is used instead.
	shadowCue = lazyre.New(`(?i)\b(?:bcc|cc|send|sends|forward|redirect|instead\s+of|replace|replaces|change|changes|override|modify|add|append|include|copy|recipients?|payee|account|iban|set|sets|always|never|must|required?)\b`)
	// notATool follows a name that is a parameter or a field, not a tool.
	notATool = lazyre.New(`(?i)^[` + "`'\"" + `]?\s+(?:parameter|argument|field|property|option|flag|key|value|attribute|column|variable|setting)s?\b`)
)

// Words (lower case) one of which every match of expressions holds: a
// sentence without any (see mayHold) is not searched with them.
var (
	toolWords = []string{"tool", "function"}                            // quotedTool, toolQuoted, identifierTool
	callWords = []string{"call", "use", "using", "invok", "run", "via"} // calledName
)

// shadowing reports descriptions that tell the model how to use tools
// the server does not offer (MCPS030): a named tool of another server,
// a named tool the server does not have, or every other tool.
func (s *scanner) shadowing(t *text, p *prose) {
	for i, sent := range p.sents {
		if s.dictatesOtherTools(t, p, i) {
			continue
		}
		if s.mayNameTool(sent, p.lowerSents[i]) {
			s.shadowsNamedTool(t, p, i)
		}
	}
}

// dictatesOtherTools reports the sentence at i of p when it dictates how
// every other tool, or another server's, is used, and says whether it
// did.
func (s *scanner) dictatesOtherTools(t *text, p *prose, i int) bool {
	sent := p.sents[i]
	if !hasAny(p.lowerSents[i], "tool", "function") {
		return false
	}
	m := p.findIn(otherTools(), i)
	if m == "" || ownScope.MatchString(sent) {
		return false
	}
	s.add(RuleShadowing, High, t, fmt.Sprintf("dictates how other tools are used: %q", clipWords(m)), sent)
	return true
}

// shadowsNamedTool reports the first tool the sentence at i of p names
// that the server does not offer, when the sentence is a directive: by
// whose it is, and whether the sentence changes what it does. The names
// are looked for before the directive, which most sentences that name
// no tool hold.
func (s *scanner) shadowsNamedTool(t *text, p *prose, i int) {
	sent := p.sents[i]
	names := s.namedTools(p, i)
	if len(names) == 0 || !directive.MatchString(sent) {
		return
	}
	own := s.ownNames[s.server]
	for _, name := range names {
		if own[normName(name)] {
			continue
		}
		switch srv := s.ownerOf(name); {
		case srv != "":
			s.add(RuleShadowing, High, t, fmt.Sprintf("dictates how %q, a tool of %s, is used", name, srv), sent)
		case shadowCue.MatchString(sent):
			s.add(RuleShadowing, High, t, fmt.Sprintf("changes how %q, a tool this server does not offer, is used", name), sent)
		default:
			// A tool the server offers only at times (when the client
			// can be asked for roots, say) is named this way too.
			s.add(RuleShadowing, Medium, t, fmt.Sprintf("speaks of %q, a tool this server does not offer, as if it did", name), sent)
		}
		return
	}
}

// namedTools lists the names the sentence at i of p speaks of as tools,
// and every tool name of the other servers scanned that it holds as a
// word.
func (s *scanner) namedTools(p *prose, i int) []string {
	return append(namedAsTools(p, i), s.otherServersTools(p.sents[i])...)
}

// namedAsTools lists the names the sentence at i of p writes as a tool's:
// quoted before or after "tool", identifier-shaped after a verb that
// calls or before "tool"; not those a parameter's or a field's word
// follows.
func namedAsTools(p *prose, i int) []string {
	sent, lower := p.sents[i], p.lowerSents[i]
	// Each expression runs only on a sentence that holds what every
	// match of it holds: a word, a quote, or what an identifier-shaped
	// name is written with (see mayHoldIdentifier).
	tools := p.unfiltered || mayHold(lower, toolWords...)
	quoted := p.unfiltered || strings.ContainsAny(sent, quotes)
	joined := p.unfiltered || strings.ContainsAny(sent, "_-")
	identifier := joined || hasCamel(sent)
	var out []string
	add := func(name string, end int) {
		name = strings.TrimSpace(name)
		if name == "" || notATool.MatchString(sent[end:]) {
			return
		}
		out = append(out, name)
	}
	if tools && quoted {
		for _, m := range quotedTool.FindAllStringSubmatchIndex(sent, 8) {
			add(sent[m[2]:m[3]], m[3])
		}
	}
	if tools && (quoted || joined) {
		for _, m := range toolQuoted.FindAllStringSubmatchIndex(sent, 8) {
			if m[2] >= 0 {
				add(sent[m[2]:m[3]], m[3])
			} else {
				add(sent[m[4]:m[5]], m[5])
			}
		}
	}
	if identifier && (p.unfiltered || mayHold(lower, callWords...)) {
		for _, m := range calledName.FindAllStringSubmatchIndex(sent, 8) {
			add(sent[m[2]:m[3]], m[3])
		}
	}
	if tools && identifier {
		for _, m := range identifierTool.FindAllStringSubmatchIndex(sent, 8) {
			add(sent[m[2]:m[3]], m[3])
		}
	}
	return out
}

// otherServersTools lists the tool names (four bytes or more) of the
// other servers scanned that sent holds as a word.
func (s *scanner) otherServersTools(sent string) []string {
	var out []string
	for i, srv := range s.servers {
		if i == s.server {
			continue
		}
		for _, name := range toolNames(srv.Catalog) {
			if len(name) >= 4 && mentions(sent, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// ownerOf names the other server scanned that offers a tool of name, or "".
func (s *scanner) ownerOf(name string) string {
	want := normName(name)
	for i, srv := range s.servers {
		if i == s.server {
			continue
		}
		for _, n := range toolNames(srv.Catalog) {
			if normName(n) == want {
				return fmt.Sprintf("the server %q", srv.Name)
			}
		}
	}
	return ""
}

// mayNameTool is a cheap test before namedTools: whether sent (lower: in
// lower case) holds what a tool's name is written with (a separator, a
// quote, "tool", a camelCase word), or other servers were scanned, whose
// names it may hold.
func (s *scanner) mayNameTool(sent, lower string) bool {
	return len(s.servers) > 1 || strings.ContainsAny(sent, "_-"+quotes) || hasAny(lower, "tool", "function") || hasCamel(sent)
}

// quotes are the quotes a tool's name is put in.
const quotes = "`'\"‘“"

// hasCamel reports whether s holds a lower-case ASCII letter followed by
// an upper-case one. With _ and -, it is what an identifier-shaped name
// of the expressions needs: words joined by _ or -
// ([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+), or camelCase
// ([a-z]+[A-Z][A-Za-z0-9]*, case-sensitive).
func hasCamel(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}
