package scan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/text/termsafe"
)

// manyInvisible is how many invisible characters in one text make a
// hidden message likely rather than a stray character.
const manyInvisible = 8

// maxSpelled bounds the text spelled by tag characters that is kept.
const maxSpelled = 4096

// hiddenChars reports the characters of t that a person does not see or
// that change what is shown: tag characters (MCPS001), bidirectional
// controls (MCPS002), control characters (MCPS003) and other invisible
// characters (MCPS004). The classes are termsafe's. It returns the text
// the tag characters spell, which the other rules read too.
func (s *scanner) hiddenChars(t *text) (spelled string) {
	var h hidden
	h.count([]rune(t.s))
	s.reportHidden(t, &h)
	return h.decoded.String()
}

// hidden counts the characters of a text that a person does not see, by
// class.
type hidden struct {
	tags, bidi, controls, loneCR, escapes, invisible int
	decoded                                          strings.Builder // what the tag characters spell
	firstBidi, firstInvisible                        rune
}

// count reads runes once, counting each class.
func (h *hidden) count(runes []rune) {
	for i, r := range runes {
		switch termsafe.Classify(r) {
		case termsafe.Tag:
			h.addTag(r)
		case termsafe.Bidi:
			h.addBidi(r)
		case termsafe.Control:
			h.control(runes, i)
		case termsafe.LineSeparator:
		case termsafe.Format:
			if !benignJoiner(runes, i) {
				h.addInvisible(r)
			}
		case termsafe.Visible:
			if strayVariationSelector(runes, i) {
				h.addInvisible(r)
			}
		}
	}
}

// control counts the control character at i: a newline, a tab and the
// carriage return of CRLF are text; the rest are not.
func (h *hidden) control(runes []rune, i int) {
	switch r := runes[i]; {
	case r == '\n' || r == '\t':
	case r == '\r' && i+1 < len(runes) && runes[i+1] == '\n':
	case r == '\r':
		h.loneCR++
	case r == 0x1b || r == 0x9b:
		h.escapes++
	default:
		h.controls++
	}
}

// addTag counts the tag character r, and keeps the ASCII character it
// spells, up to maxSpelled bytes.
func (h *hidden) addTag(r rune) {
	h.tags++
	if r >= 0xe0020 && r <= 0xe007e && h.decoded.Len() < maxSpelled {
		h.decoded.WriteRune(r - 0xe0000)
	}
}

// addBidi counts the bidirectional control r.
func (h *hidden) addBidi(r rune) {
	h.bidi++
	if h.firstBidi == 0 {
		h.firstBidi = r
	}
}

// addInvisible counts the invisible character r.
func (h *hidden) addInvisible(r rune) {
	h.invisible++
	if h.firstInvisible == 0 {
		h.firstInvisible = r
	}
}

// reportHidden adds the findings of what h counted in t.
func (s *scanner) reportHidden(t *text, h *hidden) {
	if h.tags > 0 {
		reason := fmt.Sprintf("%d Unicode tag character(s), invisible to people", h.tags)
		if d := strings.TrimSpace(h.decoded.String()); d != "" {
			reason += fmt.Sprintf("; they spell %q", clipWords(d))
		}
		s.add(RuleTags, High, t, reason, t.s)
	}
	if h.bidi > 0 {
		s.add(RuleBidi, High, t, fmt.Sprintf("%d bidirectional control(s), first U+%04X: what is shown is not what the model reads", h.bidi, h.firstBidi), t.s)
	}
	s.reportControls(t, h)
	if h.invisible > 0 {
		s.reportInvisible(t, h)
	}
}

// reportControls adds the one finding of the control characters h
// counted in t (MCPS003), the worst kind first.
func (s *scanner) reportControls(t *text, h *hidden) {
	switch {
	case h.escapes > 0:
		s.add(RuleControl, High, t, fmt.Sprintf("%d terminal escape sequence(s) (ESC or CSI) that can hide or rewrite text on a terminal", h.escapes), t.s)
	case h.controls > 0:
		s.add(RuleControl, High, t, fmt.Sprintf("%d control character(s) other than newline and tab", h.controls), t.s)
	case h.loneCR > 0:
		s.add(RuleControl, Medium, t, fmt.Sprintf("%d carriage return(s) without a newline: a terminal writes what follows over what came before", h.loneCR), t.s)
	}
}

// reportInvisible adds the finding of the invisible characters h counted
// in t (MCPS004): high in a name, or when there are enough to encode a
// message.
func (s *scanner) reportInvisible(t *text, h *hidden) {
	sev := Medium
	why := fmt.Sprintf("%d invisible character(s), first U+%04X", h.invisible, h.firstInvisible)
	switch {
	case t.kind == kindName:
		sev = High
		why += ": the name is not the name it looks like"
	case h.invisible >= manyInvisible:
		sev = High
		why += ": enough to encode a hidden message"
	}
	s.add(RuleInvisible, sev, t, why, t.s)
}

// benignJoiner reports whether the format character at i is one that
// writing needs: a zero-width joiner inside an emoji sequence, a
// zero-width non-joiner or joiner between letters of a script that uses
// them (Arabic, Persian, the Indic scripts).
func benignJoiner(runes []rune, i int) bool {
	r := runes[i]
	if r != 0x200d && r != 0x200c {
		return false
	}
	if i == 0 || i+1 >= len(runes) {
		return false
	}
	prev, next := runes[i-1], runes[i+1]
	if r == 0x200d && isPictograph(prev) && isPictograph(next) {
		return true
	}
	return joiningScript(prev) && joiningScript(next)
}

// isPictograph reports whether r is an emoji or a modifier of one, as
// emoji sequences join them.
func isPictograph(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2600 && r <= 0x27bf || r == 0xfe0f || unicode.Is(unicode.So, r)
}

// joiningScript reports whether r is a letter or mark of a script in
// which zero-width joiners and non-joiners are part of spelling.
func joiningScript(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Syriac, unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi,
		unicode.Gujarati, unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam,
		unicode.Sinhala, unicode.Myanmar, unicode.Khmer)
}

// strayVariationSelector reports whether the rune at i is a variation
// selector that selects nothing: one after another selector, or after a
// character that is neither an emoji nor an ideograph. Runs of them carry
// data invisibly.
func strayVariationSelector(runes []rune, i int) bool {
	if !isVariationSelector(runes[i]) {
		return false
	}
	if i == 0 {
		return true
	}
	prev := runes[i-1]
	return isVariationSelector(prev) || !takesVariation(prev)
}

// isVariationSelector reports whether r is a variation selector (VS1 to
// VS16, or a supplement one).
func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// takesVariation reports whether a variation selector after r may select
// something: after an emoji or a symbol, an ideograph, a keycap's base
// (an ASCII digit, # or *), or a letter of the scripts with standardized
// variants.
func takesVariation(r rune) bool {
	return isPictograph(r) || unicode.Is(unicode.Han, r) || r < 0x80 && unicode.IsDigit(r) || r == '#' || r == '*' ||
		unicode.In(r, unicode.Mongolian, unicode.Hangul, unicode.Hiragana, unicode.Katakana) || unicode.Is(unicode.S, r)
}

// confusableName reports a name that imitates another one (MCPS005):
// Latin look-alikes from another script, full-width or mathematical
// letters, or letters of several scripts.
func (s *scanner) confusableName(t *text) {
	look, scripts := lookalikes(t.s)
	mixed := urlcheck.MixedScripts(t.s)
	switch {
	case look > 0 && hasLatin(t.s) || look > 0 && len(mixed) == 0 && isAllLookalike(t.s):
		s.add(RuleConfusable, High, t, fmt.Sprintf("the name %q reads as %q: %d look-alike letter(s) (%s)", t.s, fold(t.s), look, strings.Join(scripts, ", ")), t.s)
	case len(mixed) > 1:
		s.add(RuleConfusable, High, t, fmt.Sprintf("the name %q mixes letters of %s", t.s, strings.Join(mixed, " and ")), t.s)
	}
}

// lookalikes counts the look-alikes of Latin letters in s, and names
// their scripts in the order first seen.
func lookalikes(s string) (n int, scripts []string) {
	for _, r := range s {
		if _, ok := latinLookalike(r); !ok {
			continue
		}
		n++
		if sc := lookalikeScript(r); !slices.Contains(scripts, sc) {
			scripts = append(scripts, sc)
		}
	}
	return n, scripts
}

// lookalikeScript names the script of the look-alike r.
func lookalikeScript(r rune) string {
	switch {
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	}
	return "full-width or mathematical"
}

// hasLatin reports whether s has an ASCII letter.
func hasLatin(s string) bool {
	for _, r := range s {
		if r < 0x80 && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// isAllLookalike reports whether every letter of s looks Latin: a name
// spelled wholly in look-alikes imitates a Latin name.
func isAllLookalike(s string) bool {
	letters := 0
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if _, ok := latinLookalike(r); !ok && r >= 0x80 {
			return false
		}
	}
	return letters > 0
}

// mixedWords reports words of prose that mix Latin letters with
// look-alikes from another script (MCPS006).
func (s *scanner) mixedWords(t *text) {
	n := 0
	first := ""
	for _, w := range strings.FieldsFunc(t.s, notWordRune) {
		if len(w) < 2 || !hasLatin(w) {
			continue
		}
		if hasConfusable(w) && len(urlcheck.MixedScripts(w)) > 1 {
			n++
			if first == "" {
				first = w
			}
		}
	}
	if n > 0 {
		s.add(RuleMixedWords, Medium, t, fmt.Sprintf("%d word(s) with look-alike letters of another script, first %q (reads as %q)", n, first, fold(first)), first)
	}
}

// notWordRune reports whether r is neither a letter nor a mark.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }

// hasConfusable reports whether w has a Cyrillic or Greek look-alike of
// a Latin letter.
func hasConfusable(w string) bool {
	for _, r := range w {
		if _, ok := confusables()[r]; ok {
			return true
		}
	}
	return false
}

// uriHidden reports the hidden characters of a resource's URI that are
// percent-encoded (those written as they are, hiddenChars reports), as
// urlcheck finds them.
func (s *scanner) uriHidden(t *text) {
	for _, h := range urlcheck.Hidden(t.s) {
		if !h.Encoded {
			continue
		}
		s.add(hiddenRule(h.Rune), High, t, "the URI holds "+h.String(), t.s)
	}
}

// hiddenRule is the rule that reports the hidden character r.
func hiddenRule(r rune) Rule {
	switch termsafe.Classify(r) {
	case termsafe.Tag:
		return RuleTags
	case termsafe.Bidi:
		return RuleBidi
	case termsafe.Control:
		return RuleControl
	}
	return RuleInvisible
}
