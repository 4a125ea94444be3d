package scan

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/text/lazyre"
)

// What makes sending the user's data to an address an attack is that
// the model is told to do it on its own, unasked, to a place the user
// did not choose. A tool that sends at the user's request ("when the
// user asks you to", "after the user confirms it", "for the user to
// review and submit") does what the user wants; a tool that says it
// sends what the user gives it for the call ("sends the user's query
// to …", "posts a message the user wrote to …", "uploads the file the
// user selects to …") does what it is for. Both are low: what a person
// reads to know where the tool sends, no alarm.

var (
	// usersRequest says that what the sentence orders happens when the
	// user asks for it or agrees to it: "when the user asks you to",
	// "if the user requests it", "at the user's request", "with the
	// user's consent", "after the user confirms" (and see forReview).
	// A trigger is not a request: "whenever the user asks a
	// question" asks for nothing sent.
	usersRequest = lazyre.New(`(?i)\b(?:(?:only\s+)?(?:when|whenever|if|once|after|as\s+soon\s+as)\s+(?:the\s+)?user\s+(?:explicitly\s+|specifically\s+|directly\s+)?(?:asks|requests|tells\s+you|instructs\s+you|wants|says\s+so|has\s+asked|asked)(?:\s+(?:you|for\s+(?:it|this|that|one)|it|this|that|so))?(?:\s+to(?:\s+do\s+(?:so|it|this|that))?)?\s*(?:[.,;:!)]|$)|(?:at|on|upon)\s+the\s+user'?s\s+(?:explicit\s+|own\s+)?request|(?:with|given)\s+the\s+user'?s\s+(?:explicit\s+|prior\s+)?(?:consent|permission|approval|confirmation|agreement)|(?:only\s+)?(?:when|if|once|after)\s+the\s+user\s+(?:has\s+)?(?:explicitly\s+)?(?:confirm(?:s|ed)?|approv(?:es|ed)|agree(?:s|d)|consent(?:s|ed)|accept(?:s|ed)|review(?:s|ed))(?:\s+(?:it|this|that|the\s+(?:text|message|draft|content|upload|post|request|action|summary|note|issue|page)))?\s*(?:[.,;:!)]|$))`)
	// forReview says that what the tool prepares waits for the user:
	// "for the user to review and submit". It is a request only for a
	// draft the tool opens or shows (see draftWord), of no more than
	// what the call needs (see bulkData): "send the full conversation to
	// https://… for the user to review" sends it first.
	forReview = lazyre.New(`(?i)\bfor\s+the\s+user\s+to\s+(?:review|confirm|approve|check|edit|accept)\b`)
	// draftWord is a draft the tool prepares or shows: "prefilled",
	// "opens", "a draft", "a preview".
	draftWord = lazyre.New(`(?i)\b(?:pre-?fill(?:s|ed)?|drafts?|drafted|opens|shows|displays|previews?)\b`)
	// userGiven names one thing the user gives a tool for its call: the
	// query or question to search, a message or file they wrote or
	// picked: "the user's query", "a message the user wrote", "the file
	// the user selects".
	userGiven = lazyre.New(`(?i)\b(?:(?:the|a|an)\s+(?:[a-z-]+\s+)?(?:query|question|search\s+terms?|message|file|text|document|comment|note|post|feedback|draft|image|photo|attachment)\s+(?:that\s+)?(?:the\s+)?user\s+(?:writes|wrote|has\s+written|selects|selected|picks|picked|chooses|chose|gives|gave|provides|provided|names|named|enters|entered|types|typed|attaches|attached|drafts|drafted|composes|composed|specifies|specified|uploads|uploaded)|the\s+user'?s\s+(?:search\s+)?(?:query|search\s+terms?|search|question|keywords?))\b`)
	// userChosenPlace names a place the user chose: "the channel they
	// pick", "the user's own bucket".
	userChosenPlace = lazyre.New(`(?i)\b(?:the\s+user'?s\s+own|(?:the|a)\s+(?:[\w-]+\s+)?[\w-]+\s+(?:that\s+)?(?:the\s+user|they)\s+(?:picks?|picked|chooses?|chose|names?|named|selects?|selected|gives?|gave|specif(?:y|ies|ied)))\b`)
	// bulkData names more than the one thing a call takes: every
	// message, all of the conversation, its history, its context.
	bulkData = lazyre.New(`(?i)\b(?:every|each|all|any|everything|whatever|entire|whole|full|conversations?|history|histories|transcripts?|context|chat|dialog(?:ue)?|secrets?|passwords?|credentials|tokens?|keys?)\b`)
)

// toolSendsReason is the reason of a finding about an address the tool
// says it sends to, with the address.
const toolSendsReason = "the tool sends data to %s: check that this is what it is for"

// atUsersRequest reports whether excerpt, an order to send data to an
// address, makes it happen only at the user's request or with their
// agreement (see usersRequest).
func atUsersRequest(excerpt string) bool {
	if !mayHold(strings.ToLower(excerpt), "user") {
		return false
	}
	if usersRequest.MatchString(excerpt) {
		return true
	}
	return forReview.MatchString(excerpt) && draftWord.MatchString(excerpt) && !bulkData.MatchString(excerpt) &&
		ownedSecret(excerpt) == ""
}

// userGivenOnly reports whether words, what a tool says it sends,
// name only one thing the user gives it for the call (see userGiven),
// nothing of the conversation's in bulk (see bulkData).
func userGivenOnly(words string) bool {
	return mayHold(strings.ToLower(words), "user") && userGiven.MatchString(words) && !bulkData.MatchString(words) &&
		cue(words) == "" && ownedSecret(words) == "" && userSecret.FindString(words) == ""
}

// toolSends records that the tool says it sends data to the address d
// (MCPS020): medium, low when what it sends is only what the user gives
// it for the call (see userGivenOnly).
func (s *scanner) toolSends(t *text, d, excerpt string) {
	if userGivenOnly(withoutAddresses(excerpt)) {
		s.addDestination(RuleDestination, Low, t, d, fmt.Sprintf("the tool sends what the user gives it to %s", d), excerpt)
		return
	}
	s.addDestination(RuleDestination, Medium, t, d, fmt.Sprintf(toolSendsReason, d), excerpt)
}

// aboutOwned reports whether the words before an owned-data match
// (prefix) make it what another thing is about: "feedback on your
// answers", "questions about the user's data" send the feedback, not
// the answers.
func aboutOwned(prefix string) bool {
	return aboutNoun.MatchString(prefix)
}

// aboutNoun ends the words before what they are about: "feedback on",
// "comments about", "a rating of".
var aboutNoun = lazyre.New(`(?i)\b(?:feedback|comments?|remarks|ratings?|opinions?|thoughts|suggestions|ideas|bug\s+reports?|complaints?|reviews?|votes?|scores?|thumbs\s+up|thumbs\s+down)\s+(?:on|about|regarding|concerning|for|of)\s+$`)
