//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 but kept working until at least 2027-07-28; a person may still answer it.

package interactive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/huh/v2"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrRefused is returned when the person declines to write a model reply.
var ErrRefused = errors.New("the person at the terminal refused to write the model reply")

// maxShownMessages bounds the messages of a sampling request shown.
const maxShownMessages = 50

// Sample shows a request for a model reply (sampling/createMessage), the
// system prompt and messages escaped, and returns what the person types as
// the model's reply. It implements answer.Sampler.
func (a *Answerer) Sample(ctx context.Context, q *answer.SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	unlock, err := a.turn(ctx, q != nil && q.Params != nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st := a.styles()
	w := a.out()
	server := "The server"
	if q.Server != "" {
		server = termsafe.Line(q.Server)
	}
	fmt.Fprintln(w, st.heading.Render(server+" asks for a model reply (sampling, deprecated since 2026-07-28). You write it:"))
	p := q.Params
	if p.SystemPrompt != "" {
		fmt.Fprintln(w, "  system: "+strings.TrimSpace(indent(termsafe.Block(p.SystemPrompt), "    ")))
	}
	for i, m := range p.Messages {
		if i == maxShownMessages {
			fmt.Fprintf(w, "  … %d more messages not shown\n", len(p.Messages)-i)
			break
		}
		if m == nil {
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", termsafe.Line(string(m.Role)), strings.TrimSpace(indent(termsafe.Block(contentText(m.Content)), "    ")))
	}
	if p.MaxTokens > 0 {
		fmt.Fprintf(w, "  (at most %d tokens)\n", p.MaxTokens)
	}
	var reply string
	aborted, err := a.run(ctx, huh.NewGroup(huh.NewInput().Title("Model reply").
		Description("Enter sends it; an empty reply or Esc refuses.").Value(&reply)))
	if err != nil {
		return nil, err
	}
	if aborted || strings.TrimSpace(reply) == "" {
		return nil, ErrRefused
	}
	return answer.Sample{Text: reply, Model: "person at the terminal"}.Result(), nil
}

// contentText describes a message's content: its text, and a placeholder
// for anything else.
func contentText(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case nil:
		default:
			parts = append(parts, fmt.Sprintf("[%T]", c))
		}
	}
	return strings.Join(parts, " ")
}
