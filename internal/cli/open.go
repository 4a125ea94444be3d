package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scripted returns the answerer of the --elicit answers: q, and with
// --open, the system browser opened on each URL question q accepts (accept
// means "the user opened it"; the tester itself never fetches the URL).
func (o *AnswerOptions) scripted(ios *iostreams.IOStreams, q *answer.Queue) answer.Answerer {
	if !o.Open {
		return q
	}
	return &openOnAccept{inner: q, opener: interactive.SystemBrowser(o.getenv, runtime.GOOS), errOut: ios.ErrOut, despiteWarnings: o.OpenDespiteWarnings, server: o.server}
}

// openOnAccept opens the link of every URL question its inner answerer
// accepts, unless the link has a warning (a look-alike or raw IP host, plain
// http, user info, credentials in it, this machine or a private network
// from a server elsewhere): only a person's explicit yes opens such a link,
// or --open-despite-warnings.
type openOnAccept struct {
	inner           answer.Answerer
	opener          interactive.Opener
	errOut          io.Writer
	despiteWarnings bool
	server          urlcheck.Server // where the server is
}

// Unused implements answer.Leftovers: the --elicit answers left.
func (a *openOnAccept) Unused() []answer.Spec {
	if l, ok := a.inner.(answer.Leftovers); ok {
		return l.Unused()
	}
	return nil
}

func (a *openOnAccept) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	res, err := a.inner.Answer(ctx, q)
	if err != nil || res == nil || res.Action != "accept" || q.Mode() != "url" {
		return res, err
	}
	if l := interactive.Inspect(q.Params.URL, a.server); len(l.Warnings) > 0 && !a.despiteWarnings {
		fmt.Fprintf(a.errOut, "mcp-tester: --open: not opening %s: it has a warning (%s); a link with a warning is opened only when a person says yes at the terminal (leave its --elicit answer out), or with --open-despite-warnings\n",
			l.URL, strings.Join(l.Warnings, "; "))
		return res, nil
	}
	if oerr := a.opener.Open(ctx, q.Params.URL); oerr != nil {
		fmt.Fprintf(a.errOut, "mcp-tester: warning: --open: %s\n", termsafe.Line(oerr.Error()))
	}
	return res, nil
}
