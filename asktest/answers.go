//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 but still answered while servers ask.

package asktest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answer is what a call is given about the questions the server may ask
// during it: an answer to a question ([Accept], [Decline], [Cancel],
// [OpenURL]), a model reply ([Reply]), a function that answers ([AnswerFunc]),
// or the error the call is to end with ([WantError]).
//
// Answers given up front go to the questions as mcp-tester's --elicit
// answers do, the same way in both eras: a question takes the first answer
// given for its key ([Answer.For]), else the first that fits it (an answer
// with fields fits the form that asks for all of them; one without fits
// any question), else the first left. An answer no question took fails
// the test when the call returns, and so does a question no answer took.
type Answer struct {
	spec    *answer.Spec
	sample  *answer.Sample
	fn      func(Question) Answer
	wantErr bool
	misuse  string // why the answer cannot be used, reported by the call
}

// Accept accepts a form question with the fields given (by name, as the
// form's JSON); fields left out take the form's defaults, and the answer
// is checked against the form: a field it does not ask for, or a value of
// the wrong type, fails the test. Accept(nil) accepts with the defaults
// alone, and fits a URL question too.
func Accept(fields map[string]any) Answer {
	return Answer{spec: &answer.Spec{Action: "accept", Content: fields}}
}

// Decline declines the question (the user said no).
func Decline() Answer { return Answer{spec: &answer.Spec{Action: "decline"}} }

// Cancel cancels the question (the user dismissed it).
func Cancel() Answer { return Answer{spec: &answer.Spec{Action: "cancel"}} }

// OpenURL consents to a URL question: the user opened the link (nothing
// is opened). It answers URL questions only.
func OpenURL() Answer { return Answer{spec: &answer.Spec{Action: "accept", Mode: "url"}} }

// Reply is a model's reply to a request for sampling
// (sampling/createMessage, deprecated as of 2026-07-28), for a client
// that declares sampling ([Options.Sampling]). Replies go to the requests
// in order.
func Reply(text string) Answer { return Answer{sample: &answer.Sample{Text: text}} }

// AnswerFunc answers, with what f returns, each question that no answer
// given up front took: f sees the question (its key, round, mode, message,
// form or URL) and returns [Accept], [Decline], [Cancel] or [OpenURL], or
// [Reply] for a request for sampling. A zero Answer leaves the question
// unanswered, which fails the test. f is called on the call's goroutine or
// the session's, one question at a time.
func AnswerFunc(f func(q Question) Answer) Answer { return Answer{fn: f} }

// WantError says that the call is to end with an error of the server's
// (a JSON-RPC error, a tool result marked isError, a question the server
// may not ask, ...): the call then returns it in [Result.Err] instead of
// failing the test, and fails the test when it succeeds. The test's own
// mistakes are no error of the server's, and fail the test all the same:
// a question nobody answered, an answer that does not fit its form, an
// answer no question took.
func WantError() Answer { return Answer{wantErr: true} }

// For keeps the answer for the question with this key (the key of its
// inputRequests entry, 2026-07-28). Questions of 2025-11-25 have no key:
// an answer kept for one is never used there, which fails the test.
func (a Answer) For(key string) Answer {
	return a.kept(true, fmt.Sprintf("%s.For(%q): only an answer to a question is kept for a key", a, key),
		func(s *answer.Spec) { s.Key = key })
}

// InRound keeps the answer for the questions of round n of the call
// (from 1). In 2026-07-28 each request of the call is a round; in
// 2025-11-25 every question comes within the call's one round.
func (a Answer) InRound(n int) Answer {
	return a.kept(n >= 1, fmt.Sprintf("%s.InRound(%d): only an answer to a question is kept for a round, from 1", a, n),
		func(s *answer.Spec) { s.Round = n })
}

// kept is a whose answer to a question is kept as keep says, on a copy
// (the Answer a came from may be given elsewhere too); or, when a is no
// answer to a question or ok is false, a misused, for the reason why.
func (a Answer) kept(ok bool, why string, keep func(*answer.Spec)) Answer {
	if a.spec == nil || !ok {
		a.misuse = why
		return a
	}
	s := *a.spec
	keep(&s)
	a.spec = &s
	return a
}

// String writes the answer as a test would: accept {"confirm":true} for
// "target" in round 2.
func (a Answer) String() string {
	switch {
	case a.spec != nil:
		var b strings.Builder
		b.WriteString(a.spec.Action)
		if a.spec.Mode == "url" {
			b.WriteString(" (open the URL)")
		}
		if a.spec.Content != nil {
			b.WriteString(" " + answer.Spec{Action: "accept", Content: a.spec.Content}.String()[len("accept:"):])
		}
		if a.spec.Key != "" {
			fmt.Fprintf(&b, " for %q", a.spec.Key)
		}
		if a.spec.Round > 0 {
			fmt.Fprintf(&b, " in round %d", a.spec.Round)
		}
		return b.String()
	case a.sample != nil:
		return fmt.Sprintf("reply %q", a.sample.Text)
	case a.fn != nil:
		return "an AnswerFunc"
	case a.wantErr:
		return "WantError"
	}
	return "no answer"
}

// given is what a call was given, sorted out.
type given struct {
	queue   *answer.Queue
	samples *answer.Samples
	funcs   answer.Chain
	wantErr bool
	misuse  []string
}

func sortOut(answers []Answer) *given {
	g := &given{queue: answer.NewQueue(), samples: answer.NewSamples()}
	for _, a := range answers {
		switch {
		case a.misuse != "":
			g.misuse = append(g.misuse, a.misuse)
		case a.spec != nil:
			g.queue.Push(*a.spec)
		case a.sample != nil:
			g.samples.Push(*a.sample)
		case a.fn != nil:
			g.funcs = append(g.funcs, funcAnswerer(a.fn))
		case a.wantErr:
			g.wantErr = true
		default:
			g.misuse = append(g.misuse, "a zero Answer: make answers with asktest.Accept, Decline, Cancel, OpenURL, Reply, AnswerFunc or WantError")
		}
	}
	return g
}

// answerer is who answers the call's questions: the answers given, the
// replies given, the functions, and nobody else (a question left fails).
func (g *given) answerer() answer.Answerer {
	var person answer.Answerer
	if len(g.funcs) > 0 {
		person = g.funcs
	}
	return answer.Who{Written: g.queue, Samples: []*answer.Samples{g.samples}, Person: person, Strict: strictHint, Spelling: goSpelling}.Answerer()
}

// goSpelling names an answer in messages as a test writes it.
var goSpelling = answer.Spelling{
	Answer:  func(s answer.Spec) string { return "the answer " + Answer{spec: &s}.String() },
	Unkeyed: func(key string) string { return fmt.Sprintf("leave out .For(%q)", key) },
}

// unused describes the answers and replies no question took.
func (g *given) unused(asked []Question) []string {
	var keys []string
	for _, q := range asked {
		keys = append(keys, q.Key)
	}
	var out []string
	for _, s := range g.queue.Unused() {
		why := goSpelling.NoKeysNote(s, keys)
		if why == "" {
			why = "no question it fits was asked"
		}
		out = append(out, fmt.Sprintf("%s was not used: %s", goSpelling.Answer(s), why))
	}
	for _, s := range g.samples.Unused() {
		out = append(out, fmt.Sprintf("the %s was not used: the server asked for no model reply (sampling) it fits", Answer{sample: &s}))
	}
	return out
}

// funcAnswerer is an AnswerFunc as the session's answerer of questions and
// of requests for sampling.
type funcAnswerer func(Question) Answer

func (f funcAnswerer) Answer(_ context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	a := f(questionOf(q))
	switch {
	case a.spec != nil:
		return a.spec.Result(), nil
	case a.sample != nil:
		return nil, fmt.Errorf("the AnswerFunc replied %s to a question, which takes Accept, Decline, Cancel or OpenURL", a)
	}
	return nil, answer.ErrNoAnswer
}

func (f funcAnswerer) Sample(_ context.Context, q *answer.SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	a := f(Question{Key: q.Key, Round: q.Round, Via: q.Via, Kind: KindSampling, Sampling: q.Params})
	switch {
	case a.sample != nil:
		return a.sample.Result(), nil
	case a.spec != nil:
		return nil, errors.New("the AnswerFunc answered a request for a model reply (sampling) with " + a.String() + ", which takes Reply")
	}
	return nil, answer.ErrNoAnswer
}
