package scan

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/askback/askback/internal/text/lazyre"
)

var (
	// htmlComment is an HTML comment, or one left open to the end.
	htmlComment = lazyre.New(`(?s)<!--(.*?)(-->|$)`)
	// markdownComment is the Markdown idiom for a comment: a link
	// reference definition nothing refers to, [//]: # (text).
	markdownComment = lazyre.New(`(?m)^[ \t]*\[[^\]\n]{0,20}\]:[ \t]*(?:#|<>)[ \t]*(?:\(([^)\n]*)\)|"([^"\n]*)"|'([^'\n]*)')`)
	// invisibleElement is an element styled or marked so that it is not
	// shown.
	invisibleElement = lazyre.New(`(?i)<[a-z][a-z0-9]*\b[^>]*?(?:style\s*=\s*["'][^"'>]*?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:[^.0-9]|$)|opacity\s*:\s*0(?:[^.0-9]|\.0*[^0-9])|color\s*:\s*(?:white|#fff\b|#ffffff|transparent)|(?:height|width)\s*:\s*0(?:[^.0-9]|$))|\shidden(?:\s|>|=|/)|\saria-hidden\s*=\s*["']?true)`)
	// attentionTag is a tag that speaks to the model with authority.
	attentionTag = lazyre.New(`(?i)<\s*/?\s*(important|system|instructions?|admin|secret|hidden|critical|override|priority|mandatory|urgent|note[_-]?to[_-]?(?:ai|model|assistant)|assistant|developer|sys)[\w-]*(?:\s[^<>]{0,40})?>`)
	// roleMarker is a role marker of a chat template: text that pretends
	// to start a message of another role.
	roleMarker = lazyre.New(`(?i)<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\s*\|>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>`)
)

// Words (lower case) one of which every match of an expression holds: a
// text without any (see mayHold) is not searched with it.
var (
	invisibleWords  = []string{"style", "hidden"}                // invisibleElement
	roleMarkerWords = []string{"<|", "inst]", "<<", "_of_turn>"} // roleMarker
)

// markup reports text hidden in markup (MCPS007) and tags that address
// the model (MCPS008).
func (s *scanner) markup(t *text, p *prose) {
	if !p.has("<", "[") {
		return
	}
	plain := p.plain
	for _, m := range htmlComment.FindAllStringSubmatch(plain, 8) {
		if hasWords(m[1]) {
			s.add(RuleHiddenMarkup, High, t, fmt.Sprintf("an HTML comment, not shown where the description is rendered, holds text: %q", clipWords(m[1])), m[0])
		}
	}
	for _, m := range markdownComment.FindAllStringSubmatch(plain, 8) {
		body := m[1] + m[2] + m[3]
		if hasWords(body) {
			s.add(RuleHiddenMarkup, High, t, fmt.Sprintf("a Markdown comment ([//]: #), not shown when rendered, holds text: %q", clipWords(body)), m[0])
		}
	}
	if m := p.findString(invisibleElement, invisibleWords); m != "" {
		s.add(RuleHiddenMarkup, High, t, "an element styled or marked to be invisible: "+clipWords(m), m)
	}
	if m := p.findString(roleMarker, roleMarkerWords); m != "" {
		s.add(RuleAttentionTags, High, t, fmt.Sprintf("the chat-template role marker %q pretends to start a message of another role", m), m)
	} else if m := attentionTag.FindString(plain); m != "" {
		s.add(RuleAttentionTags, Medium, t, fmt.Sprintf("the tag %q addresses the model with authority, as poisoned descriptions do", m), m)
	}
}

// hasWords reports whether s holds a letter: a comment with only dashes
// or spaces hides nothing.
func hasWords(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// clipWords is s on one line, at most 80 bytes.
func clipWords(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		cut := 80
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
