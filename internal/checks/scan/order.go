package scan

import (
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/credential"

	"github.com/askback/askback/internal/text/lazyre"
)

// An order sends data to an address only when the address is where the
// order's verb sends it: "send the user's message to ADDRESS". The words
// right before an address say what it is to the sentence (see
// addressRole): where a send verb sends, where a verb that keeps data
// keeps it ("log … to ADDRESS"), the one told ("tell ADDRESS", "email
// ADDRESS"), an address opened ("open ADDRESS"), or none of these: an
// address read from ("copy the key from ADDRESS"), or what a verb that
// sends nothing takes ("see ADDRESS", "link ADDRESS").

// addressRole is what an address is to the order before it.
type addressRole int

const (
	// roleUnknown: no word near the address says.
	roleUnknown addressRole = iota
	// roleSend: where a send verb sends: "send … to ADDRESS", "is
	// uploaded to ADDRESS", "sends … to ADDRESS".
	roleSend
	// roleKeep: where a verb puts or moves data: "log … to ADDRESS",
	// "store … at ADDRESS", "paste … into ADDRESS"; an order to send
	// when what it puts there is the user's or the conversation's (see
	// scanner.ownedOrder).
	roleKeep
	// roleKeeps: the same said of the tool: "logs … to ADDRESS".
	roleKeeps
	// roleRecipient: the one told or written to: "tell ADDRESS",
	// "notify ADDRESS", "email ADDRESS", "email us at ADDRESS", "let
	// ADDRESS know": a contact address unless what it is told is the
	// user's or the conversation's. ("make sure ADDRESS receives …" is
	// read from the words after the address: see receiveOrder.)
	roleRecipient
	// roleGoes: where data goes: "… goes to ADDRESS".
	roleGoes
	// roleOpened: an address opened, fetched or visited: "open
	// ADDRESS", "visit ADDRESS". It is a destination when data is
	// built into it (see scanner.visitWithData), or when an order after
	// it sends the user's data and names no other place ("open a
	// websocket to ADDRESS and stream the user's messages").
	roleOpened
	// roleNone: no destination: an address read from ("copy the key
	// from ADDRESS") or what a verb that sends nothing takes ("see
	// ADDRESS", "link ADDRESS", "point them to ADDRESS").
	roleNone
)

var (
	// keepVerb puts or moves data somewhere, which sends it when the
	// place is an address: log, record, store, save, back up, paste,
	// pass on, hand over, write, sync, stream, keep, push, dump, cache,
	// export, transfer, pipe, feed, give, provide, echo …
	keepVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"log": true, "record": true, "store": true, "save": true, "backup": true, "paste": true, "echo": true,
			"pass": true, "hand": true, "write": true, "sync": true, "stream": true, "keep": true, "push": true, "dump": true,
			"cache": true, "persist": true, "export": true, "replicate": true, "duplicate": true, "transfer": true, "broadcast": true,
			"pipe": true, "feed": true, "give": true, "provide": true, "supply": true, "expose": true, "disclose": true, "reveal": true}
	})
	// keepsVerb is keepVerb said of the tool: "logs", "stores".
	keepsVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"logs": true, "records": true, "stores": true, "saves": true, "backs": true, "pastes": true, "echoes": true,
			"passes": true, "hands": true, "writes": true, "syncs": true, "streams": true, "keeps": true, "pushes": true, "dumps": true,
			"caches": true, "persists": true, "exports": true, "replicates": true, "duplicates": true, "transfers": true,
			"broadcasts": true, "pipes": true, "feeds": true, "gives": true, "provides": true, "supplies": true, "exposes": true,
			"discloses": true, "reveals": true}
	})
	// openVerb opens, fetches, visits or searches what it takes.
	openVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"open": true, "opens": true, "visit": true, "load": true, "fetch": true, "request": true, "call": true,
			"hit": true, "access": true, "navigate": true, "browse": true, "go": true, "get": true, "follow": true, "ping": true,
			"connect": true, "retrieve": true, "curl": true, "wget": true, "click": true, "search": true,
			"opening": true, "visiting": true, "loading": true, "fetching": true, "requesting": true, "calling": true,
			"hitting": true, "accessing": true, "retrieving": true, "pinging": true}
	})
	// noSendVerb takes an address and sends nothing to it: "see",
	// "link", "point them to", "install from".
	noSendVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"see": true, "check": true, "read": true, "link": true, "view": true, "consult": true,
			"refer": true, "learn": true, "find": true, "point": true, "direct": true, "sign": true, "install": true,
			"download": true, "run": true, "suggest": true, "recommend": true, "mention": true, "cite": true, "show": true,
			"explore": true, "bookmark": true, "star": true, "watch": true, "register": true, "subscribe": true, "login": true}
	})
	// returnVerb gives back what it takes right after it: "it returns
	// ADDRESS" is an address the tool makes, for the user, no
	// destination ("return … to ADDRESS" is one: see roleOf).
	returnVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"return": true, "returns": true, "returning": true, "generates": true, "generate": true,
			"creates": true, "produces": true, "yields": true, "outputs": true, "prints": true, "displays": true}
	})
	// goesVerb says that data goes to what it takes: "goes to".
	goesVerb = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"goes": true, "flows": true, "travels": true, "belongs": true, "belong": true}
	})
	// goOrder orders data gone somewhere: "should go to", "must go to",
	// "belongs at" (see scanner.ownedOrder).
	goOrder = lazyre.New(`(?i)\b(?:(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|is\s+to|are\s+to|ought\s+to)\s+(?:(?:also|always|then|all|each|immediately)\s+)*go|belongs?)\b`)
	// rolePreposition is a preposition before an address: the first of
	// them, walking back from the address, says which way data goes.
	rolePreposition = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"to": true, "into": true, "onto": true, "at": true, "toward": true, "towards": true,
			"via": true, "on": true, "with": true, "over": true, "through": true, "in": true, "from": true, "by": true}
	})
	// recipientBefore ends the words before an address it names as the
	// one told or written to: "tell", "notify", "email us at", "write
	// to us at", "reach out to"; "let" and "keep" are such words only
	// with the words after the address that say so (see informedAfter).
	recipientBefore = lazyre.New(`(?i)(?:^|[^\w'-])(?:(tell|notify|inform|alert|e-?mail|mail|message|contact|give|provide|supply|write\s+to|reach(?:\s+out\s+to)?)(?:\s+(?:us|me|them|him|her|the\s+(?:team|maintainers?|authors?)|our\s+team|support))?(?:\s+(?:at|on|via))?|(let|keep))[\s:]*$`)
	// informedAfter begins the words after an address that "let" or
	// "keep" before it makes the one told: "let ADDRESS know", "keep
	// ADDRESS informed".
	informedAfter = lazyre.New(`(?i)^[\s,]*(?:know|informed|updated|posted|aware|in\s+the\s+loop)\b`)
	// ensureBefore ends the words before an address that must receive
	// what the words after it say: "make sure ADDRESS receives …".
	ensureBefore = lazyre.New(`(?i)\b(?:make\s+sure|ensure|see\s+to\s+it\s+that)\s*$`)
	// clauseEnd begins a clause that says when or why, not what is told:
	// "contact ADDRESS if the user's request fails".
	clauseEnd = lazyre.New(`(?i)\b(?:if|when|whenever|while|before|after|unless|once|because|so\s+that|in\s+case)\b`)
	// receiveAfter begins the words after an address that receives
	// what it is told: "ADDRESS must receive …", "ADDRESS receives …";
	// group 1 holds the modal that makes it an order.
	receiveAfter = lazyre.New(`(?i)^[\s,]*(?:(must|should|shall|needs?\s+to|has\s+to|is\s+to|will)\s+)?(?:also\s+|always\s+)?(?:receives?|gets?|sees?|hears?)\b`)
	// alsoCopy says that data goes to an address as well as where it is
	// meant to: a copy.
	alsoCopy = lazyre.New(`(?i)\b(?:as\s+well|also|too|a\s+copy|in\s+addition)\b`)
	// userSecret names the user's keys, tokens and secrets.
	userSecret = lazyre.New(`(?i)\b(?:the\s+)?users?'?s?\s+(?:[a-z-]+\s+){0,2}?(?:api\s+keys?|keys?|tokens?|secrets?|passwords?|credentials)\b`)
	// elsewhere names a place that is no address: the user, a channel,
	// a file.
	elsewhere = lazyre.New(`(?i)\b(?:to|into|in|at|on)\s+(?:the\s+|a\s+|your\s+|their\s+|its\s+)?(?:user|users|them|him|her|channel|file|folder|clipboard|keychain|database|config(?:uration)?|settings|terminal|editor|memory)\b`)
)

// roleOf returns what the address between before and after (the words
// of its sentence) is to the order: the words that end before (see
// recipientBefore), then the first verb or preposition walking back at
// most fourteen words that says (see addressRole). A verb right after
// a subject ("every answer you give to", "each file you read to") is
// that of a relative clause: the verb of the order before it, if there
// is one, says. A participle right before "by ADDRESS" makes the
// address what sends or keeps ("is delivered by https://…"), none.
func roleOf(before, after string) addressRole {
	deferred := roleUnknown
	if m := recipientBefore.Get().FindStringSubmatchIndex(before); m != nil {
		start := m[0]
		if start < len(before) && !isWordByte(before[start]) {
			start++
		}
		if !nounBefore(before[:start]) && (m[4] < 0 || informedAfter.MatchString(after)) {
			if !afterSubject(before[:start]) {
				return roleRecipient
			}
			deferred = roleRecipient // "every message you write to ADDRESS"
		}
	}
	if ensureBefore.MatchString(before) {
		return roleUnknown // make sure ADDRESS receives …: see receiveAfter
	}
	words := strings.Fields(before)
	n := len(words)
	sawPreposition, agent := false, false
	for k := n - 1; k >= 0 && k >= n-14; k-- {
		w := strings.ToLower(strings.Trim(words[k], "\"'`()*_,.:;!?[]"))
		if w == "" {
			continue
		}
		if strings.HasSuffix(words[k], ":") && k < n-1 {
			break // a label before the order: "Docs: see …"
		}
		if rolePreposition()[w] {
			if w == "from" && !sawPreposition {
				return roleNone // copy … from ADDRESS
			}
			agent = agent || w == "by" && !sawPreposition
			sawPreposition = true
			continue
		}
		if goesVerb()[w] && sawPreposition {
			return roleGoes // after its subject: "the user's files belong at ADDRESS"
		}
		if nounBefore(strings.Join(words[max(0, k-3):k], " ") + " ") {
			continue // a noun: "the link", "a copy", "the user's log"
		}
		if agent && (passiveParticiple()[w] || keepParticiple()[w]) {
			return roleNone // is delivered by ADDRESS: what delivers it
		}
		if !sawPreposition && returnVerb()[w] {
			return roleNone // it returns ADDRESS: what the tool gives back
		}
		role := verbRole(words, k, w)
		if role == roleUnknown {
			continue
		}
		if k > 1 && subjectWord()[strings.ToLower(words[k-1])] && role != roleNone {
			if deferred == roleUnknown {
				deferred = role // every answer you give to ADDRESS
			}
			continue
		}
		if deferred != roleUnknown && role == roleNone {
			continue // every reply you write, see …: the relative clause says
		}
		return role
	}
	return deferred
}

// verbRole returns what the verb words[k] (w, in lower case without
// its punctuation) makes an address after it (see roleOf), or
// roleUnknown when it is no such verb.
func verbRole(words []string, k int, w string) addressRole {
	n := len(words)
	next := ""
	if k+1 < n {
		next = strings.ToLower(strings.Trim(words[k+1], "\"'`()*_,.:;!?"))
	}
	switch {
	case w == "log" && (next == "in" || next == "into" || next == "on" || next == "out"):
		return roleNone // log in at ADDRESS
	case w == "up" && k > 0 && strings.EqualFold(strings.Trim(words[k-1], "\"'`()*_,.:;!?"), "back"):
		return roleKeep // back up … to ADDRESS
	case w == "backs" && next == "up":
		return roleKeeps
	case sendVerbWords()[w], sendsVerbWords()[w], passiveParticiple()[w],
		w == "dispatch", w == "dispatches", w == "dispatched":
		return roleSend
	case keepVerb()[w]:
		return roleKeep
	case keepsVerb()[w]:
		return roleKeeps
	case keepParticiple()[w] && orderedPassive(words[:k]):
		return roleKeep // must be echoed to ADDRESS
	case goesVerb()[w], w == "go" && k > 0 && goOrder.MatchString(strings.Join(words[max(0, k-4):k+1], " ")):
		return roleGoes
	case (w == "curl" || w == "wget") && dataFlag(words[k+1:]):
		return roleSend // curl -d "…" ADDRESS posts what it is given
	case openVerb()[w]:
		return roleOpened
	case noSendVerb()[w]:
		return roleNone
	}
	return roleUnknown
}

// subjectWord is a subject right before a verb that makes it the verb of
// a relative clause: "every answer you give", "each file we read".
var subjectWord = sync.OnceValue(func() map[string]bool { return map[string]bool{"you": true, "we": true, "i": true, "they": true} })

// afterSubject reports whether s, the text before a verb, ends in a
// subject (see subjectWord) after at least one other word: the verb is
// that of a relative clause ("every message you write to").
func afterSubject(s string) bool {
	w, rest := lastWord(s)
	return subjectWord()[strings.ToLower(w)] && strings.TrimSpace(rest) != ""
}

// keepParticiple are the participles of the verbs that keep or move
// data (see keepVerb): an order in the passive with a modal before
// them ("must be echoed to", "should be mirrored at"; see
// orderedPassive).
var keepParticiple = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"logged": true, "recorded": true, "stored": true, "saved": true, "pasted": true,
		"written": true, "synced": true, "synchronized": true, "synchronised": true, "streamed": true, "pushed": true,
		"dumped": true, "cached": true, "persisted": true, "exported": true, "replicated": true, "duplicated": true,
		"transferred": true, "broadcast": true, "broadcasted": true, "piped": true, "echoed": true, "exposed": true,
		"disclosed": true, "revealed": true, "handed": true, "passed": true}
})

// orderedPassive reports whether words, those before a participle, end
// in "be" after a modal that makes it an order ("must be", "should also
// be", "is to be", "must never be"), past the words that may stand
// between.
func orderedPassive(words []string) bool {
	k := len(words) - 1
	for k >= 0 && passiveFiller()[normWord(words[k])] {
		k--
	}
	if k < 1 || normWord(words[k]) != "be" {
		return false
	}
	for k--; k >= 0 && passiveFiller()[normWord(words[k])]; k-- {
	}
	return k >= 0 && passiveModal()[normWord(words[k])]
}

// passiveFiller may stand in a passive order between its modal, "be"
// and the participle: "must also be", "should always be silently", "must
// never be".
var passiveFiller = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"also": true, "always": true, "then": true, "immediately": true, "automatically": true,
		"silently": true, "quietly": true, "secretly": true, "all": true, "each": true, "every": true, "never": true, "not": true,
		"first": true}
})

// sendVerbWords and sendsVerbWords are the words of sendVerb and
// sendsVerb, for a word alone.
var (
	sendVerbWords  = sync.OnceValue(func() map[string]bool { return alternatives(sendVerb.String()) })
	sendsVerbWords = sync.OnceValue(func() map[string]bool { return alternatives(sendsVerb.String()) })
)

// alternatives returns the words of expr, an expression of the form
// (?i)\b(?:a|b|c)\b, in lower case.
func alternatives(expr string) map[string]bool {
	inner := strings.TrimSuffix(strings.TrimPrefix(expr, `(?i)\b(?:`), `)\b`)
	out := map[string]bool{}
	for _, w := range strings.Split(inner, "|") {
		out[strings.ToLower(w)] = true
	}
	return out
}

// ownedData returns what of s names the user's or the conversation's
// data (the model's own answers among it: see modelOutput), their keys
// or secrets, or "".
func ownedData(s string) string {
	if m := firstNotAbout(userData, s); m != "" {
		return m
	}
	if m := firstNotAbout(modelOutput, s); m != "" {
		return m
	}
	if m := userSecret.FindString(s); m != "" {
		return m
	}
	if m := ownedSecret(s); m != "" {
		return m
	}
	return cue(s)
}

// firstNotAbout returns the first match of re in s that is not what
// another thing is about (see aboutOwned: "feedback on your answers"),
// or "".
func firstNotAbout(re *lazyre.Regexp, s string) string {
	for _, loc := range re.FindAllStringIndex(s, 8) {
		if !aboutOwned(s[:loc[0]]) {
			return s[loc[0]:loc[1]]
		}
	}
	return ""
}

// secretTerms are the project's words for a secret, payment or identity
// data (credential.DefaultTerms: passwords, keys, tokens, card numbers,
// social-security numbers, IBANs, one-time codes …), the one list the
// recorder and the forms read too.
var secretTerms = sync.OnceValue(credential.DefaultTerms)

// secretOwner names whose a secret is: the user's, the customer's
// ("USER_SSN", "the user's credit card number", "customer_iban").
var secretOwner = lazyre.New(`(?i)\b(?:the\s+)?(?:user|customer|client|account\s+holder|patient|visitor|person)(?:'s|s'|s)?\s+`)

// ownedSecret returns the words of s that name a secret of the user's
// (an owner, see secretOwner, and within the next eight words a term of
// secretTerms: "the user's credit card number", "user ssn"), or "".
func ownedSecret(s string) string {
	if !mayHold(strings.ToLower(s), "user", "customer", "client", "holder", "patient", "visitor", "person") {
		return ""
	}
	for _, loc := range secretOwner.FindAllStringIndex(s, 8) {
		words := strings.Fields(s[loc[1]:])
		words = words[:min(len(words), 8)]
		if term := secretTerms().Match(strings.Join(words, " ")); term != "" {
			return strings.TrimSpace(s[loc[0]:loc[1]]) + " " + term
		}
	}
	return ""
}

// toldData returns what of after, the words after an address told
// ("tell ADDRESS what the user asked"), names the user's or the
// conversation's data before a clause that says when or why ("contact
// ADDRESS if the user's request fails"), or "".
func toldData(after string) string {
	if loc := clauseEnd.FindStringIndex(after); loc != nil {
		after = after[:loc[0]]
	}
	return ownedData(after)
}

// withoutVerbs returns s without the matches of the send verbs that are
// verbs (not nouns: "a copy", "the user's email"): what is left holds
// what the order sends, if anything ("email us at …" sends nothing).
func withoutVerbs(s string) string {
	locs := sendVerb.FindAllStringIndex(s, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		if loc := locs[i]; !nounBefore(s[:loc[0]]) {
			s = s[:loc[0]] + " " + s[loc[1]:]
		}
	}
	return s
}

// sendsData reports whether words (a sentence without its addresses)
// name data sent: a data word that is not a send verb ("copy the
// command" sends no copy), or the user's data.
func sendsData(words string) bool {
	w := withoutVerbs(words)
	return dataWord.MatchString(w) || ownedData(w) != ""
}

// namedData reports whether words (a sentence without its addresses)
// name data that is the user's or the conversation's, or may be: the
// user's data, a secret, the conversation, messages, files, keys, or a
// data word but one that names what a job or a tool made (results,
// output, logs, a summary, a copy), which is no one's in particular:
// "forward the build logs via https://…" sends the build's.
func namedData(words string) bool {
	w := withoutVerbs(words)
	if ownedData(w) != "" {
		return true
	}
	for _, m := range dataWord.FindAllString(w, -1) {
		if !madeData()[strings.ToLower(m)] {
			return true
		}
	}
	return false
}

// madeData are the data words (see dataWord) that name what a job or a
// tool made, not the user's or the conversation's data.
var madeData = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"result": true, "results": true, "output": true, "outputs": true, "response": true,
		"responses": true, "answer": true, "answers": true, "reply": true, "replies": true, "log": true, "logs": true,
		"summary": true, "copy": true, "copies": true, "all": true}
})

// isWordByte reports whether c is an ASCII letter, digit or '_'.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// dataFlag reports whether args, what follows curl or wget, hold a flag
// that sends data: -d, --data…, -F, --form, -T, --upload-file,
// --post-data, --post-file.
func dataFlag(args []string) bool {
	for _, a := range args {
		switch {
		case a == "-d", a == "-F", a == "-T", a == "--form", a == "--upload-file",
			strings.HasPrefix(a, "--data"), strings.HasPrefix(a, "--post-"):
			return true
		}
	}
	return false
}
