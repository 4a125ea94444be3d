package recording

import (
	"slices"
)

// Rounds are the calls of a recording whose last round waits for a next
// request of the client, and the one rule by which a later request is
// taken as the next round of one of them. Both readers of a recording (a
// conversation for `script`, a stand-in's script for `serve`) pair rounds
// with it, so that they take every request the same way. The zero value is
// empty and ready; C is what a reader keeps of a call.
type Rounds[C comparable] struct {
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
func (rs *Rounds[C]) Wait(call C, r Round) {
	rs.Forget(call)
	rs.open = append(rs.open, openRound[C]{call: call, r: r})
}

// Forget takes call out of the waiting: it ended, or a request continued it.
func (rs *Rounds[C]) Forget(call C) {
	rs.open = slices.DeleteFunc(rs.open, func(o openRound[C]) bool { return o.call == call })
}

// Continue finds the call a request of method on name in session, with
// params p, continues, and takes it out of the waiting. The rule: a
// call of the same method, name and session waits; a request that carries
// neither answers nor a requestState continues only a call whose round
// ended in the URL error -32042 (else it is a new call); the answers' keys
// are among those the round asked (a URL retry needs none). Of those the
// call whose requestState is the one sent back comes first (the state is
// what a server issues to name the round), then the one with the same
// arguments, then the earliest.
func (rs *Rounds[C]) Continue(method, name, session string, p Params) (C, bool) {
	best, score := -1, -1
	for i, o := range rs.open {
		r := o.r
		if r.Method != method || r.Name != name || r.Session != session {
			continue
		}
		if !r.URL && len(p.InputResponses) == 0 && p.RequestState == nil {
			continue // a new call of the same tool, not a next round
		}
		covered := true
		for k := range p.InputResponses {
			if !slices.Contains(r.Keys, k) {
				covered = false
			}
		}
		if !covered && !r.URL {
			continue
		}
		s := 0
		if string(r.Args) == string(p.Arguments) {
			s += 2
		}
		if p.RequestState != nil && r.State != nil && *r.State == *p.RequestState {
			s += 4
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
