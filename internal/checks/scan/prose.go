package scan

import (
	"strings"

	"github.com/askback/askback/internal/text/lazyre"
	"github.com/askback/askback/internal/text/runecut"
)

// prose is a text as the phrase rules read it: folded (see fold), in
// lower case for the cheap tests that come before the regular
// expressions, and cut into sentences once.
type prose struct {
	plain, lower string
	sents        []string
	lowerSents   []string // sents in lower case
	// unfiltered runs the expressions without the literal tests before
	// them (mayHold, a phrase's further words); a phrase's first words
	// still rule sentences out (see scan).
	unfiltered bool
}

// newProse prepares plain (a folded text) for the phrase rules.
func newProse(plain string) *prose {
	p := &prose{plain: plain, lower: strings.ToLower(plain), sents: sentences(plain)}
	for _, s := range p.sents {
		p.lowerSents = append(p.lowerSents, strings.ToLower(s))
	}
	return p
}

// phrase is a regular expression that looks for a phrase within one
// sentence, and the words (lower case) one of which the phrase holds: a
// sentence without any is not searched. Each of also is a further list
// of words one of which every match holds: a sentence without any of one
// list is not searched either.
type phrase struct {
	words []string
	also  [][]string
	re    *lazyre.Regexp
}

// newPhrase compiles expr, case-insensitive, with its words written
// "a|b|c", and the further lists every match needs after them, each
// after " & ": "a|b & c|d".
func newPhrase(words, expr string) phrase {
	lists := strings.Split(words, " & ")
	ph := phrase{words: strings.Split(lists[0], "|"), re: lazyre.New(`(?i)` + expr)}
	for _, l := range lists[1:] {
		ph.also = append(ph.also, strings.Split(l, "|"))
	}
	return ph
}

// mayMatch reports whether lower, a sentence in lower case, holds the
// words the phrase needs; unfiltered, only the first list of them.
func (ph phrase) mayMatch(lower string, unfiltered bool) bool {
	if !hasAny(lower, ph.words...) {
		return false
	}
	if unfiltered {
		return true
	}
	for _, l := range ph.also {
		if !mayHold(lower, l...) {
			return false
		}
	}
	return true
}

// find returns the first match of phrases in a sentence of the text, in
// the order of the sentences then of the phrases, and that sentence.
func (p *prose) find(phrases []phrase) (match, sentence string) {
	for i, sent := range p.sents {
		if m := p.findIn(phrases, i); m != "" {
			return m, sent
		}
	}
	return "", ""
}

// findIn returns the first match of phrases in the sentence at i, or "".
func (p *prose) findIn(phrases []phrase, i int) string {
	for _, ph := range phrases {
		if ph.mayMatch(p.lowerSents[i], p.unfiltered) {
			if m := ph.re.FindString(p.sents[i]); m != "" {
				return m
			}
		}
	}
	return ""
}

// mayHold reports whether the text may hold a match of an expression
// every match of which holds one of words (see mayHold); unfiltered, it
// is true.
func (p *prose) mayHold(words []string) bool {
	return p.unfiltered || mayHold(p.lower, words...)
}

// findString returns the first match of re in the text, where every match
// of re holds one of words (see mayHold), or "".
func (p *prose) findString(re *lazyre.Regexp, words []string) string {
	if !p.mayHold(words) {
		return ""
	}
	return re.FindString(p.plain)
}

// has reports whether the text holds one of words (lower case): a phrase
// rule whose words are all missing need not run its expressions.
func (p *prose) has(words ...string) bool { return hasAny(p.lower, words...) }

// mayHold reports whether lower holds one of words: the cheap test before
// a case-insensitive expression every match of which holds one of words.
// The expressions read folded text, in which every rune their case
// folding takes for an ASCII letter is that letter once lower-cased (the
// fold makes the long s, ſ, an s; strings.ToLower does the rest).
// TestLiteralTestsHoldEveryMatch checks each list of words against its
// expression.
func mayHold(lower string, words ...string) bool {
	return hasAny(lower, words...)
}

// hasAny reports whether lower holds one of words.
func hasAny(lower string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// maxSentence bounds a sentence: a longer run of text without a full stop
// is cut into pieces, so that the rules that look for words near each
// other look at a bounded stretch.
const maxSentence = 600

// sentences cuts s into sentences: each ends at a full stop, question or
// exclamation mark followed by a space, at a semicolon, or at a line
// break, and is at most maxSentence bytes.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if endsSentence(s, i) {
			out = appendSentence(out, s[start:i])
			start = i + 1
		}
	}
	return appendSentence(out, s[start:])
}

// endsSentence reports whether the byte at i of s ends a sentence: a line
// break, a semicolon, or a full stop, question or exclamation mark at the
// end or before a space.
func endsSentence(s string, i int) bool {
	switch c := s[i]; c {
	case '\n', ';':
		return true
	case '.', '!', '?':
		return i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n'
	}
	return false
}

// appendSentence appends part to out, cut into pieces of at most
// maxSentence bytes, unless it is only spaces.
func appendSentence(out []string, part string) []string {
	for len(part) > maxSentence {
		head := runecut.Prefix(part, maxSentence)
		if head == "" {
			// No rune starts in the first maxSentence bytes (bytes that
			// are not UTF-8): take one, so that the loop moves on.
			head = part[:maxSentence]
		}
		out = append(out, head)
		part = part[len(head):]
	}
	if strings.TrimSpace(part) != "" {
		out = append(out, part)
	}
	return out
}
