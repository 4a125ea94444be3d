package interactive

import (
	"context"
	"io"
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
