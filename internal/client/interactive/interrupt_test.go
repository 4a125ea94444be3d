package interactive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An interrupt (or a deadline) ends a question asked with line prompts even
// while the person has typed nothing: the prompt must not hold the tester.
func TestAccessiblePromptEndsWithItsContext(t *testing.T) {
	in, w := io.Pipe() // a person who types nothing
	defer w.Close()
	a := New(Options{In: in, Out: io.Discard, Accessible: true, NoColor: true})
	schema := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	form, err := formschema.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	q := &answer.Question{Key: "who", Server: "test", Form: form,
		Params: &mcp.ElicitParams{Message: "Name?", RequestedSchema: []byte(schema)}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.Answer(ctx, q)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a question nobody answered returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the line prompt ignored the end of its context")
	}
}

// interruptingInput is the input of a person who presses Ctrl-C at the
// prompt when the input ends with it (a pipe from a process of the same
// process group, which the interrupt ends too): the first read interrupts
// (ends the question's context), then the input is at its end.
type interruptingInput struct{ interrupt func() }

func (r interruptingInput) Read([]byte) (int, error) {
	r.interrupt()
	return 0, io.EOF
}

// lockedBuffer is a bytes.Buffer that an abandoned prompt may write to
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An interrupt while a prompt waits is reported as the interrupt, whatever
// the prompt met as it came: not as the end of the input (which declines
// the question, and says so), nor as an answer. The prompt's line is
// ended, so that what the command says next starts a line of its own. For
// a form and a link's yes/no, with line prompts and with the full-screen
// forms.
func TestInterruptIsNoEndOfInput(t *testing.T) {
	errInterrupt := errors.New("interrupt signal received")
	questions := map[string]*answer.Question{
		"form": formQuestion(t, "Roll out?", deploySchema),
		"url":  urlQuestion("https://example.com/connect"),
	}
	for name, q := range questions {
		for _, accessible := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/accessible=%v", name, accessible), func(t *testing.T) {
				ctx, interrupt := context.WithCancelCause(context.Background())
				defer interrupt(nil)
				out := &lockedBuffer{}
				var notes []string
				a := New(Options{In: interruptingInput{func() { interrupt(errInterrupt) }}, Out: out,
					Accessible: accessible, NoColor: true, Note: func(n string) { notes = append(notes, n) }})
				res, err := a.Answer(ctx, q)
				if res != nil {
					t.Errorf("the interrupted question was answered %+v", res)
				}
				if !errors.Is(err, errInterrupt) || errors.Is(err, answer.ErrNoAnswer) {
					t.Errorf("the interrupted question ended with %v, want the interrupt", err)
				}
				if len(notes) > 0 {
					t.Errorf("the interrupted question said %q", notes)
				}
				if seen := out.String(); accessible && !strings.HasSuffix(seen, "\n") {
					t.Errorf("the prompt's line was left open:\n%q", seen)
				}
			})
		}
	}
}
