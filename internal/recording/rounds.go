package recording

import (
	"encoding/json"
	"slices"
)

// openRounds are the calls of a recording whose last round waits for a next
// request of the client, and the one rule by which a later request is
// taken as the next round of one of them. CallReader, which both readers
// of a recording (a conversation for `script`, a stand-in's script for
// `serve`) read through, pairs rounds with it, so that they take every
// request the same way. The zero value is
// empty and ready; C is what a reader keeps of a call.
type openRounds[C comparable] struct {
	open []openRound[C]
}

// A Round is what a call's last round waits with.
type Round struct {
	Method  string // tools/call, prompts/get, resources/read
	Name    string // the tool or prompt name, the resource URI
	Session string // the HTTP session label; empty over stdio
	// Args are the call's arguments as its first request sent them.
	Args []byte
	// Keys are the inputRequests keys the round asked (input_required).
	Keys []string
	// State is the requestState the round was issued with, as recorded
	// (a note of its length unless the recording shows states).
	State *string
	// URL: the round ended in the error -32042 of 2025-11-25, whose retry
	// continues the call whatever it carries.
	URL bool
}

type openRound[C comparable] struct {
	call C
	r    Round
}

// Wait files call's last round as waiting for a next request; it replaces
// what the call waited with before.
func (rs *openRounds[C]) Wait(call C, r Round) {
	rs.Forget(call)
	rs.open = append(rs.open, openRound[C]{call: call, r: r})
}

// Forget takes call out of the waiting: it ended, or a request continued it.
func (rs *openRounds[C]) Forget(call C) {
	rs.open = slices.DeleteFunc(rs.open, func(o openRound[C]) bool { return o.call == call })
}

// Continue finds the call a request of method on name in session, with
// params p, continues, and takes it out of the waiting. The rule: a later
// round belongs to the call whose requestState it carries back untouched.
//
//   - The call has the same method, name and session, and waits.
//   - A round issued with a requestState is continued only by a request
//     that sends it back (in a recording that hides states, a note of the
//     same length). A state the recording shows names the round: nothing
//     else is asked.
//   - A round issued with none (a 2026-07-28 server that keeps no state,
//     the URL error -32042 of 2025-11-25) is continued by a request whose
//     answers' keys are among those the round asked (a URL retry needs
//     none); a request that carries neither answers nor a state continues
//     only a round that ended in the URL error (else it is a new call).
//
// Of the calls left: one whose shown state came back; then one whose
// round asked every key answered (of hidden states of one length, the
// answers tell); then one with the same arguments; then the earliest.
func (rs *openRounds[C]) Continue(method, name, session string, p Params) (C, bool) {
	best, score := -1, -1
	for i, o := range rs.open {
		s := o.r.continuedBy(method, name, session, p)
		if s < 0 {
			continue
		}
		if string(o.r.Args) == string(p.Arguments) {
			s++
		}
		if s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		var zero C
		return zero, false
	}
	c := rs.open[best].call
	rs.open = slices.Delete(rs.open, best, best+1)
	return c, true
}

// continuedBy tells whether a request of method on name in session, with
// params p, may be the next round of the call that waits with r (the rule
// of openRounds.Continue): -1 when it may not, else a rank, the higher the
// surer: 4 when it sends back r's state as the recording shows it, 2 when
// its answers are to r's keys, 0 when it sends back r's hidden state with
// answers to other keys too.
func (r Round) continuedBy(method, name, session string, p Params) int {
	if r.Method != method || r.Name != name || r.Session != session {
		return -1
	}
	sentBack := r.State != nil && p.RequestState != nil && *r.State == *p.RequestState
	switch {
	case r.State != nil && !sentBack:
		return -1
	case sentBack && !isStateNote(*p.RequestState):
		return 4 // the state the round was issued with, sent back untouched
	case !sentBack && !r.URL && len(p.InputResponses) == 0 && p.RequestState == nil:
		return -1 // a new call of the same tool, not a next round
	case r.URL || answersTo(r.Keys, p.InputResponses):
		return 2
	case sentBack:
		return 0
	}
	return -1
}

// answersTo reports whether every answer is to one of keys.
func answersTo(keys []string, answers map[string]json.RawMessage) bool {
	for k := range answers {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}
