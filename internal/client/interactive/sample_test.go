//lint:file-ignore SA1019 sampling is deprecated but a person may still answer it.

package interactive

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func sampleQuestion(text string) *answer.SampleQuestion {
	return &answer.SampleQuestion{Key: "summary", Server: "handbook", Params: &mcp.CreateMessageWithToolsParams{
		MaxTokens:    100,
		SystemPrompt: "You summarize texts.",
		Messages:     []*mcp.SamplingMessageV2{{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: text}}}},
	}}
}

func TestSampleAPersonWritesTheReply(t *testing.T) {
	var out bytes.Buffer
	a := New(Options{In: strings.NewReader("A short story.\n"), Out: &out, Accessible: true})
	// The server's text tries to clear the screen and recolour: shown escaped.
	res, err := a.Sample(context.Background(), sampleQuestion("Summarize: \x1b[2J\x1b[31mred\nsecond line"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "A short story." || res.Role != "assistant" {
		t.Errorf("reply %q, role %q", got, res.Role)
	}
	shown := out.String()
	if strings.ContainsRune(shown, 0x1b) {
		t.Errorf("the request was shown with escape sequences:\n%q", shown)
	}
	for _, want := range []string{"handbook asks for a model reply", "system: You summarize texts.", `user: Summarize: \x1b[2J\x1b[31mred`, "second line", "(at most 100 tokens)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the person did not see %q in:\n%s", want, shown)
		}
	}
}

func TestSampleAnEmptyReplyRefuses(t *testing.T) {
	var out bytes.Buffer
	a := New(Options{In: strings.NewReader("\n"), Out: &out, Accessible: true})
	if _, err := a.Sample(context.Background(), sampleQuestion("hi")); !errors.Is(err, ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
}

func TestSampleWithoutAPerson(t *testing.T) {
	a := New(Options{})
	if _, err := a.Sample(context.Background(), sampleQuestion("hi")); !errors.Is(err, answer.ErrNoAnswer) {
		t.Fatalf("err = %v, want ErrNoAnswer", err)
	}
}
