//lint:file-ignore SA1019 sampling and roots are deprecated as of 2026-07-28 but kept working until at least 2027-07-28; the audit answers them when told how.

package audit

import (
	"context"
	"sync"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extraAnswers answers what a probe declares besides elicitation: sampling, with
// the replies of Options.Samples in turn (the audit calls each subject
// many times, so they are used again), and roots with Options.Roots. A
// probe that declares no elicitation declares none of these either, so
// that rule 4 still sees any request as one it must not make.
type extraAnswers struct {
	mu      sync.Mutex
	samples []answer.Sample
	next    int
	roots   []*mcp.Root
}

// newExtraAnswers returns what answers sampling and roots, nil when the audit
// was given neither.
func newExtraAnswers(samples []answer.Sample, roots []*mcp.Root) *extraAnswers {
	if len(samples) == 0 && len(roots) == 0 {
		return nil
	}
	return &extraAnswers{samples: samples, roots: roots}
}

// Sample gives the next reply, implementing answer.Sampler.
func (o *extraAnswers) Sample(context.Context, *answer.SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.samples[o.next%len(o.samples)]
	o.next++
	return s.Result(), nil
}

// sampler is o as the session's Sampler: nil (sampling not declared)
// without replies.
func (o *extraAnswers) sampler() answer.Sampler {
	if o == nil || len(o.samples) == 0 {
		return nil
	}
	return o
}

// rootList is the roots the session declares: nil (not declared) without
// any.
func (o *extraAnswers) rootList() []*mcp.Root {
	if o == nil {
		return nil
	}
	return o.roots
}

// answers reports whether o answers requests of method
// (sampling/createMessage, roots/list).
func (o *extraAnswers) answers(method string) bool {
	switch {
	case o == nil:
		return false
	case method == "sampling/createMessage":
		return len(o.samples) > 0
	case method == "roots/list":
		return len(o.roots) > 0
	}
	return false
}

// request answers a server-initiated sampling or roots request.
func (o *extraAnswers) request(ctx context.Context, method string) (mcp.Result, error) {
	if method == "roots/list" {
		return &mcp.ListRootsResult{Roots: o.roots}, nil
	}
	return o.Sample(ctx, nil)
}

// fill adds to responses the answers to the sampling and roots requests of
// a round (protocol 2026-07-28) that o answers.
func (o *extraAnswers) fill(ctx context.Context, reqs mcp.InputRequestMap, responses mcp.InputResponseMap) mcp.InputResponseMap {
	for k, r := range reqs {
		m := requestKind(r)
		if !o.answers(m) {
			continue
		}
		if responses == nil {
			responses = mcp.InputResponseMap{}
		}
		if m == "roots/list" {
			responses[k] = &mcp.ListRootsResult{Roots: o.roots}
		} else {
			res, _ := o.Sample(ctx, nil)
			responses[k] = res
		}
	}
	return responses
}
