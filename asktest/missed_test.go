package asktest_test

import (
	"testing"

	"github.com/askback/askback/asktest"
)

// A question no answer took fails the call (asktest is always strict);
// when answers were given that did not apply to it, the failure names each
// and why, instead of only saying that no answer was given.
func TestMissedAnswersNamed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    *asktest.Options
		answers []asktest.Answer
		want    []string
	}{{
		name:    "a keyed answer to a question of 2025-11-25",
		opts:    &asktest.Options{Era: asktest.Legacy},
		answers: []asktest.Answer{asktest.Accept(production).For("target")},
		want: []string{`no answer was given for question "Roll out web version 2.4.1 – where to?"; ` +
			`the answer accept {"confirm":true,"environment":"production"} for "target" did not apply: ` +
			`the questions had no keys (protocol 2025-11-25 asks with elicitation/create); leave out .For("target"): it then goes to the form that asks for its fields; ` +
			`give the call an answer for it`},
	}, {
		name:    "an answer for a key no question has",
		answers: []asktest.Answer{asktest.Accept(production).For("targte")},
		want: []string{`no answer was given for question "target"; ` +
			`the answer accept {"confirm":true,"environment":"production"} for "targte" did not apply: ` +
			`it is kept for the question with the key "targte"; this one's key is "target"; give the call`},
	}, {
		name:    "an answer for another round",
		answers: []asktest.Answer{asktest.Decline().InRound(2)},
		want:    []string{`the answer decline in round 2 did not apply: it is kept for round 2; this question came in round 1`},
	}, {
		name:    "a URL consent to a form",
		answers: []asktest.Answer{asktest.OpenURL()},
		want:    []string{`the answer accept (open the URL) did not apply: it answers only a URL question (a link to open); this one is a form`},
	}} {
		failing(t, tc.name, func(ft *T) {
			c := asktest.NewClient(ft, asktest.Server(newServer(broken{})), tc.opts)
			c.CallTool("deploy", web, tc.answers...)
		}, tc.want...)
	}
}
