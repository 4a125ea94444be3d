//lint:file-ignore SA1019 sampling is deprecated as of 2026-07-28 but kept working until at least 2027-07-28; a person may still answer it.

package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sample asks the person for a model reply, bounded like Answer.
func (b bounded) Sample(ctx context.Context, q *answer.SampleQuestion) (*mcp.CreateMessageWithToolsResult, error) {
	s, ok := b.inner.(answer.Sampler)
	if !ok {
		return nil, answer.ErrNoAnswer
	}
	type reply struct {
		res *mcp.CreateMessageWithToolsResult
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		res, err := s.Sample(ctx, q)
		ch <- reply{res, err}
	}()
	select {
	case r := <-ch:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no reply from the person in time: %w", ctx.Err())
	}
}
