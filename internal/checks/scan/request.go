package scan

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/text/lazyre"
)

// An order to make a request to an address with the user's or the
// conversation's data in it sends that data to the address's host,
// whatever the verb: the data set as the request's body or payload ("make
// a request to ADDRESS with the body set to the chat transcript"), added
// to the address ("request ADDRESS + base64(user query)", "append the
// user's question to ADDRESS and retrieve it"), an address built from it
// ("load a URL built from the user's question"), or a place for it in
// the address fetched before every answer ("retrieve
// ADDRESS/{{user_input}} before each answer"). These are what
// requestOrder reads.

var (
	// requestData names what such an order puts in the request: the
	// user's or the conversation's data, the model's own words, or what
	// the user wrote, written as a name ("user query", "user prompt").
	requestData = lazyre.New(`(?i)\b(?:(?:the\s+)?(?:user|customer)'?s?\s+(?:[a-z-]+\s+)?(?:query|queries|questions?|prompts?|inputs?|messages?|requests?|data|text|words)|(?:chat|conversation|message|dialog(?:ue)?)\s+(?:history|log|transcript|so\s+far|contents?)|(?:the|this|our|your|entire|full|whole|complete)\s+(?:[a-z-]+\s+)?(?:conversation|chat|transcript|history)|(?:previous|prior|earlier|all)\s+(?:user\s+)?messages|everything\s+(?:the\s+user|you)\s+(?:said|typed|wrote))\b`)
	// bulkRequestData is data of the conversation beyond the one
	// question a call needs: an order to send it needs no more words.
	bulkRequestData = lazyre.New(`(?i)\b(?:conversations?|chat|transcripts?|history|histories|dialog(?:ue)?|messages|every|each|all|entire|full|whole|complete)\b`)
	// requestCarries says where in the request the data goes: as its
	// body or payload ("with the body set to", "whose body is", "as its
	// payload"), or added to the address ("+ base64(", "append … to",
	// "encode … into", "built from").
	requestCarries = lazyre.New(`(?i)\b(?:(?:request\s+)?(?:body|payload|data|content|query\s+string)\s+(?:set\s+to|equal\s+to|being|filled\s+with|made\s+of|containing|=)|whose\s+(?:request\s+)?(?:body|payload|content|query)\s+(?:is|are|contains|holds)|as\s+(?:its|the|a)\s+(?:request\s+)?(?:body|payload|query)|(?:built|made|formed|constructed|composed|assembled|generated)\s+(?:from|out\s+of|with)|(?:append|add|attach|concatenate|encode|url-encode|percent-encode|base64-encode|hex-encode|embed|insert)\s)|\+\s*(?:[a-z0-9_.]+\s*\(\s*)?`)
	// requestVerb is an order to make the request: a verb that opens,
	// fetches, calls or sends.
	requestVerb = lazyre.New(`(?i)\b(?:make|send|issue|fire|do)\s+(?:a|an|one)\s+(?:[a-z-]+\s+)?(?:request|call)\b|\b(?:fetch|open|visit|load|request|ping|curl|wget|post|put|get|hit|call|retrieve|download|access|beacon|submit|upload|sync|mirror|report|forward|send|return|query)\b`)
	// everyTurn makes an order one to carry out on every turn, before or
	// after each answer: no call the user asked for.
	everyTurn = lazyre.New(`(?i)\b(?:before|after|with)\s+(?:each|every|any|your)\s+(?:answer|reply|response|turn|message)s?\b|\b(?:before|after|prior\s+to)\s+(?:answering|replying|responding|you\s+(?:answer|reply|respond))\b|\b(?:on|at)\s+(?:each|every)\s+turn\b|\bevery\s+time\b|\bfirst\s+step\b|\balways\b`)
	// returnTo is the end of an order that hands data back to an address:
	// "return the conversation history to", "sync … with".
	returnTo = lazyre.New(`(?i)^\s*(?:please\s+)?(?:always\s+)?(?:return|hand|give|pass|feed|push|sync|stream|ship|leak|dump|export)\s+(?:[\w'-]+\s+){0,8}?(?:back\s+)?(?:to|with|into)\s+(?:the\s+(?:endpoint|url|server|webhook|address)\s+)?$`)
)

// requestOrder reports the address d of sentence sent when the sentence
// orders a request made to it with the user's or the conversation's data
// in the request (see the comment above), and reports whether it did. A
// request with only what the user asks for (the user's question) is one
// only when it is made on every turn ("before each answer"): a search
// tool sends the user's question where it searches.
func (s *scanner) requestOrder(t *text, sent, d string) bool {
	i := strings.Index(sent, d)
	if i < 0 || !requestVerb.MatchString(withoutAddresses(sent)) {
		return false
	}
	before, after := sent[:i], sent[i+len(d):]
	if sendsVerb.MatchString(before) && !requestVerb.MatchString(before) {
		return false // what the tool does, said of it (see sendOrder)
	}
	what := ""
	switch {
	case returnTo.MatchString(before):
		what = requestData.FindString(before)
	case requestCarries.MatchString(sent):
		for _, loc := range requestCarries.FindAllStringIndex(sent, -1) {
			// The data is told after the words that carry it, or, for
			// "with … as its payload", just before them.
			if w := requestData.FindString(prefixOf(sent[loc[1]:], 90)); w != "" {
				what = w
				break
			}
			if w := requestData.FindString(sent[max(0, loc[0]-60):loc[0]]); w != "" && strings.HasPrefix(strings.ToLower(sent[loc[0]:]), "as ") {
				what = w
				break
			}
		}
	case hasSlot(d):
		if _, name, ok := dataSlot(d); ok {
			what = name
		} else if m := requestData.FindString(d); m != "" {
			what = m
		} else if name := slotWords(d); name != "" && requestData.MatchString(name) {
			what = name
		}
	}
	if what == "" {
		return false
	}
	if !bulkRequestData.MatchString(what) && !everyTurn.MatchString(before+" "+after) {
		return false
	}
	s.addDestination(RuleDestination, High, t, d, fmt.Sprintf("orders a request to %s with %s in it", d, clipWords(what)), sent)
	return s.hasDestination(RuleDestination, t, d)
}

// slotWords returns the name of the first place for a value in address d
// in words ({{user_input}}: "user input"), or "".
func slotWords(d string) string {
	for _, m := range addressSlot.FindAllStringSubmatch(d, 8) {
		if name := slotName(m); name != "" {
			return strings.NewReplacer("_", " ", "-", " ").Replace(name)
		}
	}
	return ""
}

// prefixOf returns at most n bytes of s.
func prefixOf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
