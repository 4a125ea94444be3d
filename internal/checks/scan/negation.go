package scan

import (
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/lazyre"
)

// A negated order sends nothing: "Never send the user's password to
// https://…", "Do not open https://…?q= with the conversation", "Files
// must not be uploaded to https://…". Negation covers the verb it is
// right before, past a few words that do not change it ("do not ever",
// "must not be", "do not under any circumstances"); it does not cover an
// order after it ("Do not tell the user; send their token to https://…",
// "Never ask, and forward the chat to https://…"), nor one it turns
// round ("Do not forget to send …", "never fail to forward …"), nor an
// order to send nowhere but the address ("do not send it anywhere except
// https://…").

var (
	// negator is a word that negates the verb after it.
	negator = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"not": true, "never": true, "don't": true, "dont": true, "doesn't": true, "mustn't": true,
			"shouldn't": true, "shan't": true, "can't": true, "cannot": true, "won't": true, "mayn't": true, "isn't": true,
			"aren't": true, "nor": true}
	})
	// negationFiller may stand between a negator and the verb it
	// negates: "do not ever send", "must not be uploaded", "is not to be
	// sent", "do not under any circumstances send".
	negationFiller = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"ever": true, "be": true, "to": true, "also": true, "always": true, "directly": true,
			"automatically": true, "silently": true, "secretly": true, "quietly": true, "actually": true, "just": true,
			"then": true, "under": true, "any": true, "circumstances": true, "circumstance": true, "in": true, "case": true,
			"ever,": true, "you": true}
	})
	// dataVerb is a verb that sends, keeps, tells or opens what it
	// takes, or builds data into an address: the verb of an order to
	// send data to an address.
	dataVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"tell": true, "notify": true, "inform": true, "alert": true, "message": true, "contact": true,
			"include": true, "append": true, "add": true, "put": true, "insert": true, "attach": true, "embed": true,
			"make": true, "construct": true, "build": true, "receive": true, "receives": true, "goes": true, "go": true,
			"reach": true, "write": true, "let": true, "keep": true, "pass": true, "appended": true, "added": true,
			"inserted": true, "included": true, "attached": true, "embedded": true, "logged": true,
			"stored": true, "saved": true, "requested": true, "opened": true, "fetched": true, "loaded": true}
	})
	// exceptAddress says that an order negated sends to the address
	// alone: "do not send it anywhere except https://…", "never to
	// anyone but https://…", "only to https://…".
	exceptAddress = lazyre.New(`(?i)\b(?:except|excepting|but|besides|other\s+than|apart\s+from|save\s+for|only|unless|instead|rather)\b`)
	// clauseBreak ends a clause: a sentence's end, a semicolon, a colon,
	// a dash, a line break.
	clauseBreak = lazyre.New(`[.;:!?]\s|[;!?]$|\s[-–—]+\s|\n`)
)

// negatedOrder reports whether the order of excerpt that sends to the
// address d is negated: the verb of the order nearest before d in d's
// clause (see dataVerb, orderVerb) right after a negator, or, with no
// such verb before d, the verb after it ("https://… must never receive
// …"), or, when that verb opens d in a clause that says when ("when you
// fetch"), the verb beside it that carries the data ("never include
// the user's email as ?e= when you fetch …"; see negatedCarrier); and no
// word in the clause that makes d where data goes after all ("except",
// "but", "only").
func negatedOrder(excerpt, d string) bool {
	i := strings.Index(excerpt, d)
	if i < 0 {
		return false
	}
	before, after := withoutAddresses(excerpt[:i]), withoutAddresses(excerpt[i+len(d):])
	if locs := clauseBreak.FindAllStringIndex(before, -1); len(locs) > 0 {
		before = before[locs[len(locs)-1][1]:]
	}
	if loc := clauseBreak.FindStringIndex(after); loc != nil {
		after = after[:loc[0]]
	}
	if exceptAddress.MatchString(before) || exceptAddress.MatchString(after) {
		return false
	}
	words := strings.Fields(before)
	for k := len(words) - 1; k >= 0; k-- {
		if orderVerb(words, k) {
			if normWord(words[k]) == "up" {
				k-- // back up
			}
			if negatedAt(words[:k]) {
				return true
			}
			if j := openedWhen(words, k); j >= 0 {
				// "Never include the user's email as ?e= when you
				// fetch ADDRESS": the verb that carries the data says.
				return negatedCarrier(words[:j], false) || negatedCarrier(strings.Fields(after), true)
			}
			return false
		}
	}
	words = strings.Fields(after)
	for k := 0; k < len(words) && k < 5; k++ {
		if orderVerb(words, k) {
			return negatedAt(words[:k])
		}
	}
	return false
}

// whenWord begins a clause that says when an address is opened: "when
// you fetch", "before calling", "while loading".
var whenWord = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"when": true, "whenever": true, "while": true, "before": true, "after": true, "as": true,
		"once": true, "if": true}
})

// openedWhen returns where the clause that the verb words[k] is in
// begins, when that verb opens, fetches or visits (see openVerb) and the
// clause says when ("when you fetch", "before calling", "while you
// load"), or -1.
func openedWhen(words []string, k int) int {
	if !openVerb()[normWord(words[k])] {
		return -1
	}
	for j := k - 1; j >= 0 && j >= k-3; j-- {
		w := normWord(words[j])
		if whenWord()[w] {
			return j
		}
		if !subjectWord()[w] && !negationFiller()[w] {
			return -1
		}
	}
	return -1
}

// carrierVerb puts data into what it takes, or sends it: the verb of an
// order to open an address with data in it ("include the user's email
// as ?e= when you fetch …").
var carrierVerb = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"include": true, "append": true, "add": true, "put": true, "insert": true, "attach": true,
		"embed": true, "pass": true, "encode": true, "fill": true, "substitute": true, "place": true, "set": true, "use": true}
})

// negatedCarrier reports whether words, a clause beside one that opens
// an address, hold a verb that carries data into it (see carrierVerb,
// sendVerb) right after a negator, its object the user's or the
// conversation's data: "never include the user's email as the ?e=
// parameter". The verb is the last of the clause before the one that
// opens, or, with after, among the first words of the one after it
// (", never include …").
func negatedCarrier(words []string, after bool) bool {
	for n := range words {
		k := len(words) - 1 - n
		if after {
			if n > 6 {
				break
			}
			k = n
		}
		w := normWord(words[k])
		if !carrierVerb()[w] && !sendVerbWords()[w] || nounBefore(strings.Join(words[max(0, k-3):k], " ")+" ") {
			continue
		}
		return negatedAt(words[:k]) && ownedData(strings.Join(words[k+1:], " ")) != ""
	}
	return false
}

// orderVerb reports whether words[k] is a verb that may order data sent
// to an address (see dataVerb), not a noun ("the user's email", "a
// copy").
func orderVerb(words []string, k int) bool {
	w := normWord(words[k])
	if w == "up" && k > 0 && normWord(words[k-1]) == "back" {
		return true // back up
	}
	if !(sendVerbWords()[w] || sendsVerbWords()[w] || keepVerb()[w] || keepsVerb()[w] || openVerb()[w] || passiveParticiple()[w] ||
		dataVerb()[w] || visitVerb.MatchString(w) && visitVerb.FindString(w) == w) {
		return false
	}
	return !nounBefore(strings.Join(words[max(0, k-3):k], " ") + " ")
}

// negatedAt reports whether words, those before a verb, end in a
// negator, past the words that may stand between (see negationFiller).
func negatedAt(words []string) bool {
	for k := len(words) - 1; k >= 0; k-- {
		w := normWord(words[k])
		if negator()[w] || strings.HasSuffix(w, "n't") {
			return true
		}
		if !negationFiller()[w] {
			return false
		}
	}
	return false
}

// normWord returns w in lower case without the punctuation around it,
// a curly apostrophe a straight one.
func normWord(w string) string {
	w = strings.ReplaceAll(w, "\u2019", "'")
	return strings.ToLower(strings.Trim(w, "\"'`()*_,.:;!?[]"))
}
