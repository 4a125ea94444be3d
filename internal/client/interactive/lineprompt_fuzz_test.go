package interactive

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// failingInput reads what was typed, then fails with a read error that is
// not the end of the input (a directory, a connection reset).
func failingInput(typed string) io.Reader {
	return io.MultiReader(strings.NewReader(typed), iotestErrReader{})
}

// errReadFailed is what failingInput's read fails with.
var errReadFailed = errors.New("read /dev/stdin: is a directory")

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errReadFailed }

// A read error is no answer, as the end of the input is: whatever was
// typed before it, the line prompts end as they would had the input ended
// after its last whole line (a line the error cut short is not an answer).
// It was taken for an empty line: every prompt's default, and Submit.
func FuzzLinePromptsReadError(f *testing.F) {
	for _, s := range []string{"", "x\n", "1\ny\n1\n0\n3\nab\n1\n", "1\ny\n1\n0\n3\nab\n", "1\ny\n1\n0\n3\nab\n1", "3\n", "2\nmaybe\n", "\n\n\n\n\n", "1\ny\n0\n"} {
		f.Add(s)
	}
	q := func(t *testing.T) *answer.Question { return formQuestion(t, "Where to?", promptSchema) }
	ask := func(t *testing.T, in io.Reader) (*mcp.ElicitResult, []string, error) {
		var notes []string
		a := New(Options{In: in, Out: io.Discard, Accessible: true, Note: func(n string) { notes = append(notes, n) }})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := a.Answer(ctx, q(t))
		return res, notes, err
	}
	f.Fuzz(func(t *testing.T, typed string) {
		whole := typed[:strings.LastIndexByte(typed, '\n')+1]
		got, notes, gotErr := ask(t, failingInput(typed))
		want, _, wantErr := ask(t, strings.NewReader(whole))
		if !errors.Is(gotErr, answer.ErrNoAnswer) && gotErr != nil {
			t.Fatalf("%q then a read error: %v", typed, gotErr)
		}
		if errors.Is(gotErr, answer.ErrNoAnswer) != errors.Is(wantErr, answer.ErrNoAnswer) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q then a read error: %+v, %v; ended after %q: %+v, %v", typed, got, gotErr, whole, want, wantErr)
		}
		if gotErr != nil && (len(notes) != 1 || !strings.Contains(notes[0], "reading the answer failed: "+errReadFailed.Error())) {
			t.Fatalf("%q then a read error: notes %q do not name the error", typed, notes)
		}
	})
}

// Every kind of question a person answers at a line prompt (a form, a
// link's confirmation, a model reply) is not answered when the input
// fails: declined, the error named once.
func TestReadErrorIsNoAnswer(t *testing.T) {
	for _, typed := range []string{"", "1\n"} {
		var out strings.Builder
		var notes []string
		a := New(Options{In: failingInput(typed), Out: &out, Accessible: true, Opener: &openRecorder{},
			Note: func(n string) { notes = append(notes, n) }})
		ctx := context.Background()
		if res, err := a.Answer(ctx, formQuestion(t, "Roll out?", deploySchema)); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%q: form: %+v, %v; want no answer", typed, res, err)
		}
		if res, err := a.Answer(ctx, urlQuestion("https://github.com/login")); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%q: link: %+v, %v; want no answer", typed, res, err)
		}
		if res, err := a.Sample(ctx, sampleQuestion("Summarize.")); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%q: model reply: %+v, %v; want no answer", typed, res, err)
		}
		want := []string{"reading the answer failed: read /dev/stdin: is a directory; no more questions are shown; this one and any after it are declined"}
		if !reflect.DeepEqual(notes, want) {
			t.Errorf("%q: notes = %q, want %q", typed, notes, want)
		}
	}
	// Each kind on its own, as the first question asked.
	for name, ask := range map[string]func(a *Answerer) error{
		"link": func(a *Answerer) error {
			_, err := a.Answer(context.Background(), urlQuestion("https://github.com/login"))
			return err
		},
		"model reply": func(a *Answerer) error {
			_, err := a.Sample(context.Background(), sampleQuestion("Summarize."))
			return err
		},
	} {
		a := New(Options{In: failingInput(""), Out: io.Discard, Accessible: true, Opener: &openRecorder{}, Note: func(string) {}})
		if err := ask(a); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%s: %v; want no answer", name, err)
		}
	}
}
