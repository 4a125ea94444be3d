package interactive

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
)

// promptSchema asks every kind of line prompt: a choice of one, a yes/no,
// a choice of many with a least, a bounded number and a text.
const promptSchema = `{"type":"object","properties":{
"env":{"type":"string","enum":["staging","production"]},
"confirm":{"type":"boolean"},
"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1},
"count":{"type":"integer","minimum":1,"maximum":5},
"name":{"type":"string","minLength":2}
},"required":["env","tags","count","name"]}`

// The line prompts take whatever a person (or a pipe) types: every input
// ends in an answer or in no answer (the input ended), never in a panic or
// a prompt that asks for ever.
func FuzzLinePrompts(f *testing.F) {
	for _, s := range []string{"", "x\n", "1\ny\n1\n0\n3\nab\n1\n", "3\n", "2\nmaybe\n", "\n\n\n\n\n", "1\ny\n0\n", "-1\n99\n", "1\ny\n1\n0\n9\n"} {
		f.Add(s)
	}
	q := func(t *testing.T) *answer.Question { return formQuestion(t, "Where to?", promptSchema) }
	f.Fuzz(func(t *testing.T, typed string) {
		a := New(Options{In: strings.NewReader(typed), Out: io.Discard, Accessible: true})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := a.Answer(ctx, q(t))
		switch {
		case errors.Is(err, answer.ErrNoAnswer):
		case err != nil:
			t.Fatalf("%q: %v", typed, err)
		case res == nil:
			t.Fatalf("%q: no result and no error", typed)
		}
	})
}

// The end of the input after a wrong answer is no answer (it was a panic
// of the forms library: the last line typed taken for a choice).
func TestLinePromptInputEndsAfterAWrongAnswer(t *testing.T) {
	for _, typed := range []string{"x\n", "1\nmaybe\n", "1\ny\n0\n"} {
		a := New(Options{In: strings.NewReader(typed), Out: io.Discard, Accessible: true})
		if _, err := a.Answer(context.Background(), formQuestion(t, "Where to?", promptSchema)); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%q: err = %v, want no answer", typed, err)
		}
	}
}
