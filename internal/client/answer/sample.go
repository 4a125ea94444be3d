//lint:file-ignore SA1019 sampling and roots are deprecated as of 2026-07-28 but kept working until at least 2027-07-28; the tester answers them while servers ask.

package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SampleQuestion is a server's request for a model reply
// (sampling/createMessage).
type SampleQuestion struct {
	Key    string // the inputRequests key; empty for a server-initiated request
	Round  int    // the round of the call, from 1
	Via    string // how it arrived (see the exchange package)
	Server string // the asking server's name
	Params *mcp.CreateMessageWithToolsParams
}

// Sampler answers sampling requests. It returns ErrNoAnswer when it has
// nothing to say, so the next one in a [SamplerChain] may answer.
type Sampler interface {
	Sample(ctx context.Context, q *SampleQuestion) (*mcp.CreateMessageWithToolsResult, error)
}

// SamplerChain asks each sampler in turn until one answers.
type SamplerChain []Sampler

// Sample returns the first answer that is not ErrNoAnswer.
func (c SamplerChain) Sample(ctx context.Context, q *SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	return first(ctx, c, q, Sampler.Sample)
}

// DefaultModel is the model name of a scripted reply that names none.
const DefaultModel = "mcp-tester"

// Sample is one scripted model reply: what --sample and sample_response
// give.
type Sample struct {
	Text       string // the reply's text
	Model      string // the model name reported; empty means DefaultModel
	StopReason string // empty means "endTurn"
	Role       string // empty means "assistant"
}

// ParseSample reads a reply as written after --sample: plain text, or a JSON
// object {"text": …, "model": …, "stopReason": …, "role": …} (text required,
// the rest optional, nothing else). Text that starts with "{" but is not
// such an object is an error: write it as {"text": "{…"} instead.
func ParseSample(s string) (Sample, error) {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return Sample{Text: s}, nil
	}
	var w struct {
		Text       *string `json:"text"`
		Model      string  `json:"model"`
		StopReason string  `json:"stopReason"`
		Role       string  `json:"role"`
	}
	what := "sample " + abbrev(s)
	err := userjson.Decode(what, s, &w)
	var fe *userjson.FieldError
	if errors.As(err, &fe) {
		return Sample{}, fmt.Errorf("%s: not a reply object {\"text\": …, \"model\": …, \"stopReason\": …, \"role\": …}: %v", what, fe.Err)
	}
	if err != nil {
		return Sample{}, err
	}
	if w.Text == nil {
		return Sample{}, fmt.Errorf("%s: the object has no \"text\"", what)
	}
	if w.Role != "" && w.Role != "assistant" && w.Role != "user" {
		return Sample{}, fmt.Errorf("%s: role is assistant or user, not %q", what, w.Role)
	}
	return Sample{Text: *w.Text, Model: w.Model, StopReason: w.StopReason, Role: w.Role}, nil
}

func abbrev(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// String renders the sample as it is written after --sample: its text
// when nothing else is set, else the JSON object.
func (s Sample) String() string {
	if s.Model == "" && s.StopReason == "" && s.Role == "" && !strings.HasPrefix(strings.TrimSpace(s.Text), "{") {
		return s.Text
	}
	m := map[string]string{"text": s.Text}
	for k, v := range map[string]string{"model": s.Model, "stopReason": s.StopReason, "role": s.Role} {
		if v != "" {
			m[k] = v
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return strings.TrimSpace(b.String())
}

// Result is the reply the sample gives.
func (s Sample) Result() *mcp.CreateMessageWithToolsResult {
	r := &mcp.CreateMessageWithToolsResult{
		Content:    []mcp.Content{&mcp.TextContent{Text: s.Text}},
		Model:      s.Model,
		Role:       mcp.Role(s.Role),
		StopReason: s.StopReason,
	}
	if r.Model == "" {
		r.Model = DefaultModel
	}
	if r.Role == "" {
		r.Role = "assistant"
	}
	if r.StopReason == "" {
		r.StopReason = "endTurn"
	}
	return r
}

// Samples hands out scripted replies in order. When none is left it
// returns ErrNoAnswer.
type Samples struct {
	mu   sync.Mutex
	list []Sample
	next int
}

// NewSamples returns a queue holding list, in order.
func NewSamples(list ...Sample) *Samples { return &Samples{list: list} }

// Push adds a reply at the end.
func (q *Samples) Push(s Sample) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, s)
}

// Sample hands out the next reply.
func (q *Samples) Sample(context.Context, *SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next >= len(q.list) {
		return nil, ErrNoAnswer
	}
	s := q.list[q.next]
	q.next++
	return s.Result(), nil
}

// Unused returns the replies nobody asked for, in order.
func (q *Samples) Unused() []Sample {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Sample(nil), q.list[q.next:]...)
}

// ParseRoot reads a root as written after --root: URI or URI=NAME. The
// last "=" separates the name, so a URI that holds "=" itself is written
// with a name after it, or with a trailing "=" (no name). The URI must be
// absolute (file:///work/repo); the name is what a person sees.
func ParseRoot(s string) (*mcp.Root, error) {
	uri, name := s, ""
	if i := strings.LastIndex(s, "="); i >= 0 {
		uri, name = s[:i], s[i+1:]
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || uri != strings.TrimSpace(uri) {
		return nil, fmt.Errorf("root %q: not an absolute URI; write e.g. file:///work/repo or file:///work/repo=repo", s)
	}
	return &mcp.Root{URI: uri, Name: name}, nil
}

// Answer implements [Answerer] so that replies can sit in a [Chain] with
// the answers to questions: Samples answers no question.
func (q *Samples) Answer(context.Context, *Question) (*mcp.ElicitResult, error) {
	return nil, ErrNoAnswer
}

// Sample asks the members of the chain that answer model requests, in
// order, until one answers.
func (c Chain) Sample(ctx context.Context, q *SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	for _, a := range c {
		if !CanSample(a) {
			continue
		}
		res, err := a.(Sampler).Sample(ctx, q)
		if errors.Is(err, ErrNoAnswer) {
			continue
		}
		return res, err
	}
	return nil, ErrNoAnswer
}

// CanSample reports whether a answers model requests: it is a Sampler, a
// Chain only when one of its members is, and Required when what it wraps
// is.
func CanSample(a Answerer) bool {
	switch a := a.(type) {
	case nil:
		return false
	case Chain:
		for _, m := range a {
			if CanSample(m) {
				return true
			}
		}
		return false
	case Required:
		return CanSample(a.Answerer)
	}
	_, ok := a.(Sampler)
	return ok
}

// Sample passes a request for a model reply on to the Answerer when it
// answers them ([CanSample]): Required makes questions required, not model
// replies, which always fail when nobody gives one.
func (r Required) Sample(ctx context.Context, q *SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	if !CanSample(r.Answerer) {
		return nil, ErrNoAnswer
	}
	return r.Answerer.(Sampler).Sample(ctx, q)
}
