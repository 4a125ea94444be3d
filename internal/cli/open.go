package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/interactive"
	"github.com/askback/askback/internal/iostreams"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scripted returns the answerer of the --elicit answers: q, and with
// --open, the system browser opened on each URL question q accepts (accept
// means "the user opened it"; the tester itself never fetches the URL).
func (o *AnswerOptions) scripted(ios *iostreams.IOStreams, q *answer.Queue) answer.Answerer {
	if !o.Open {
		return q
	}
	return &openOnAccept{inner: q, opener: interactive.SystemBrowser(o.getenv, runtime.GOOS), errOut: ios.ErrOut}
}

// openOnAccept opens the link of every URL question its inner answerer
// accepts.
type openOnAccept struct {
	inner  answer.Answerer
	opener interactive.Opener
	errOut io.Writer
}

func (a *openOnAccept) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	res, err := a.inner.Answer(ctx, q)
	if err != nil || res == nil || res.Action != "accept" || q.Mode() != "url" {
		return res, err
	}
	if oerr := a.opener.Open(ctx, q.Params.URL); oerr != nil {
		fmt.Fprintf(a.errOut, "mcp-tester: warning: --open: %v\n", oerr)
	}
	return res, nil
}
