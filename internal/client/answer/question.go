// Package answer turns a server's question into an answer. An [Answerer]
// is the one interface every source of answers implements: the scripted
// [Queue] (from --elicit flags or elicit_response), a person at the
// terminal, the audit. [Finish] applies the schema's defaults (unless the
// answer is to be sent exactly as given) and validates an accepted answer,
// once, whoever gave it.
package answer

import (
	"context"
	"errors"
	"fmt"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Question is what a server asked.
type Question struct {
	Key    string // the inputRequests key; empty for a server-initiated request
	Round  int    // the round of the call, from 1
	Via    string // how it arrived (see the exchange package)
	Server string // the asking server's name
	Params *mcp.ElicitParams
	// Form is the parsed requested schema of a form question, nil for URL
	// questions.
	Form *formschema.Schema
	// Exact is set by the Answerer whose answer is to be sent exactly as
	// given ([Spec.Exact]): [Finish] then fills in no defaults.
	Exact bool
	// Later are the other elicitations of this question's round (forms
	// and URLs) that will be asked after it, in the order they will be
	// asked, each checked and read as this one is (a form that cannot be
	// read is left out: it is refused when its turn comes). It is set on
	// the first elicitation of an input_required round that asks several,
	// for an answerer that shows a round at once; each is still asked in
	// its turn.
	Later []*Question
}

// Mode is "form" or "url".
func (q *Question) Mode() string {
	if q.Params.Mode == "" {
		return "form"
	}
	return q.Params.Mode
}

// ErrNoAnswer is returned by an Answerer that has nothing to say about a
// question, so the next one in a [Chain] may answer.
var ErrNoAnswer = errors.New("no answer for this question")

// Answerer answers questions.
type Answerer interface {
	// Answer returns the answer to q, or ErrNoAnswer. The answer's content
	// is checked by [Finish] afterwards.
	Answer(ctx context.Context, q *Question) (*mcp.ElicitResult, error)
}

// Chain asks each answerer in turn until one answers.
type Chain []Answerer

// Answer returns the first answer that is not ErrNoAnswer.
func (c Chain) Answer(ctx context.Context, q *Question) (*mcp.ElicitResult, error) {
	return first(ctx, c, q, Answerer.Answer)
}

// first asks each member of a chain (Chain, SamplerChain) in turn, nil
// ones skipped, and returns the first answer that is not ErrNoAnswer.
func first[M any, Q any, R any](ctx context.Context, chain []M, q Q, ask func(M, context.Context, Q) (R, error)) (R, error) {
	for _, m := range chain {
		if any(m) == nil {
			continue
		}
		res, err := ask(m, ctx, q)
		if errors.Is(err, ErrNoAnswer) {
			continue
		}
		return res, err
	}
	var none R
	return none, ErrNoAnswer
}

// Required fails a question its Answerer has no answer for, instead of
// letting it be declined: for runs in which every question must be answered
// on purpose (CI). The failure is not ErrNoAnswer, so a Chain does not go
// on past it.
type Required struct {
	Answerer Answerer
	// Hint ends the error message: what to do about it.
	Hint string
	// Written are the answers written in advance among Answerer's: those
	// it still holds ([Leftovers]) are named in the error, each with why
	// it did not answer the question, as Spelling writes them.
	Written  Answerer
	Spelling Spelling
}

// Answer returns the Answerer's answer, or an error naming the question it
// had none for, and the answers written in advance that did not apply.
func (r Required) Answer(ctx context.Context, q *Question) (*mcp.ElicitResult, error) {
	var res *mcp.ElicitResult
	err := ErrNoAnswer
	if r.Answerer != nil {
		res, err = r.Answerer.Answer(ctx, q)
	}
	if !errors.Is(err, ErrNoAnswer) {
		return res, err
	}
	name := q.Key
	if name == "" && q.Params != nil {
		name = q.Params.Message
	}
	msg := fmt.Sprintf("no answer was given for question %q", name)
	if missed := r.Spelling.Missed(r.Written, q); missed != "" {
		msg += "; " + missed
	}
	if r.Hint != "" {
		msg += "; " + r.Hint
	}
	return nil, errors.New(msg)
}
