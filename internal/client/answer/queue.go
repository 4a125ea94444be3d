package answer

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Queue hands out scripted answers. The rule, the same on every protocol
// version, for each question as it comes:
//
//  1. the first unused answer keyed to the question's key (only questions of
//     a 2026-07-28 input_required result have keys);
//  2. else the first unused unkeyed answer that fits the question: an
//     answer without content (accept, decline, cancel) fits any question,
//     one with content fits a form whose requested schema has every field
//     the content names;
//  3. else the first unused unkeyed answer, whatever its content (the
//     answer's check then names the field that does not fit).
//
// So answers written in any order reach the forms they were written for,
// whether a server asks them in one round (taken in key order) or as
// separate elicitation/create requests (taken as they arrive), and
// content-free answers keep their order. When nothing is left it returns
// ErrNoAnswer.
type Queue struct {
	mu    sync.Mutex
	specs []Spec
	used  []bool
}

// NewQueue returns a queue holding specs, in order.
func NewQueue(specs ...Spec) *Queue {
	q := &Queue{}
	for _, s := range specs {
		q.Push(s)
	}
	return q
}

// Push adds a spec at the end.
func (q *Queue) Push(s Spec) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.specs = append(q.specs, s)
	q.used = append(q.used, false)
}

// Answer takes the spec for question qu out of the queue.
func (q *Queue) Answer(_ context.Context, qu *Question) (*mcp.ElicitResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pick := -1
	for i, s := range q.specs {
		if !q.used[i] && s.Key != "" && s.Key == qu.Key && s.Allows(qu) {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i, s := range q.specs {
			if !q.used[i] && s.Key == "" && Fits(s, qu) {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		for i, s := range q.specs {
			if !q.used[i] && s.Key == "" && s.Allows(qu) {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return nil, ErrNoAnswer
	}
	q.used[pick] = true
	qu.Exact = q.specs[pick].Exact
	return q.specs[pick].Result(), nil
}

// Fits reports whether s can answer qu by its content: an answer without
// content (or with an empty object) fits any question; one with content
// fits a form question whose requested schema has every field it names.
// An answer kept for another round or mode (Spec.Allows) fits none.
func Fits(s Spec, qu *Question) bool {
	if !s.Allows(qu) {
		return false
	}
	if len(s.Content) == 0 {
		return true
	}
	if qu.Mode() != "form" || qu.Form == nil {
		return false
	}
	for name := range s.Content {
		if qu.Form.Field(name) == nil {
			return false
		}
	}
	return true
}

// Unused returns the specs nobody asked for, in order, each with its Origin.
func (q *Queue) Unused() []Spec {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []Spec
	for i, s := range q.specs {
		if !q.used[i] {
			out = append(out, s)
		}
	}
	return out
}

// Reset drops every spec.
func (q *Queue) Reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.specs, q.used = nil, nil
}

// Leftovers is an [Answerer] of answers written in advance that says
// which it has not used yet: a [Queue], or what wraps one.
type Leftovers interface {
	Unused() []Spec
}

// Spelling is how the author of answers written in advance wrote them, for
// the messages that name one: each runner has its own (the command line's
// --elicit, a script's elicit_response, the Go of asktest), while what the
// messages say is decided here, once. The zero Spelling writes answers as
// --elicit takes them.
type Spelling struct {
	// Answer names an answer: --elicit 'target=accept', elicit_response
	// accept (line 3). Nil: the answer as --elicit takes it, quoted.
	Answer func(Spec) string
	// Unkeyed says how to write an answer without its key: write the
	// answer without "target=". Nil: that.
	Unkeyed func(key string) string
}

func (sp Spelling) answer(s Spec) string {
	if sp.Answer != nil {
		return sp.Answer(s)
	}
	return fmt.Sprintf("%q", s.String())
}

func (sp Spelling) unkeyed(key string) string {
	if sp.Unkeyed != nil {
		return sp.Unkeyed(key)
	}
	return fmt.Sprintf("write the answer without %q", key+"=")
}

// NoKeysNote explains why a keyed answer matched none of the questions
// asked, when none of them had a key: a server on protocol 2025-11-25 or
// older asks with elicitation/create (or a -32042 error), whose questions
// carry no key. It is empty when some question had a key, or when the spec
// has none. It spells the answer as --elicit takes it
// ([Spelling.NoKeysNote]).
func NoKeysNote(s Spec, keys []string) string {
	return Spelling{}.NoKeysNote(s, keys)
}

// NoKeysNote is [NoKeysNote] in sp's spelling.
func (sp Spelling) NoKeysNote(s Spec, keys []string) string {
	if s.Key == "" || len(keys) == 0 {
		return ""
	}
	for _, k := range keys {
		if k != "" {
			return ""
		}
	}
	return fmt.Sprintf("the questions had no keys (protocol 2025-11-25 asks with elicitation/create); %s: it then goes to the form that asks for its fields", sp.unkeyed(s.Key))
}

// missed says why s, an answer written in advance that the [Queue] still
// holds, did not answer qu: its key, round or mode keep it for another
// question. It is "" for an answer that could have answered qu.
func (sp Spelling) missed(s Spec, qu *Question) string {
	switch {
	case s.Key != "" && qu.Key == "":
		return sp.NoKeysNote(s, []string{qu.Key})
	case s.Key != "" && s.Key != qu.Key:
		return fmt.Sprintf("it is kept for the question with the key %q; this one's key is %q", s.Key, qu.Key)
	case s.Round != 0 && s.Round != qu.Round:
		return fmt.Sprintf("it is kept for round %d; this question came in round %d", s.Round, qu.Round)
	case s.Mode != "" && s.Mode != qu.Mode():
		return fmt.Sprintf("it answers only %s; this one is %s", modeNoun(s.Mode), modeNoun(qu.Mode()))
	}
	return ""
}

// modeNoun is a question of mode m, in a message.
func modeNoun(m string) string {
	if m == "url" {
		return "a URL question (a link to open)"
	}
	return "a form"
}

// Missed names the answers written in advance that written still holds
// ([Leftovers]), each with why it did not answer qu, spelled by sp; "" when
// it holds none (or cannot say).
func (sp Spelling) Missed(written Answerer, qu *Question) string {
	l, ok := written.(Leftovers)
	if !ok {
		return ""
	}
	var parts []string
	for _, s := range l.Unused() {
		if why := sp.missed(s, qu); why != "" {
			parts = append(parts, sp.answer(s)+" did not apply: "+why)
		}
	}
	return strings.Join(parts, "; ")
}
