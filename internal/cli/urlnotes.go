package cli

import (
	"fmt"
	"io"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/text/termsafe"
)

// urlNotes tells the person, on stderr, what to be careful about in the URL
// of a URL question: its host, and the warnings of urlcheck (punycode, raw
// IP addresses, plain http to another machine, user info, credentials in the
// URL, this machine or a private network from a server that is not there:
// where says where the server is). The URL itself is printed in full on the
// [ELICIT] line; it is never fetched.
func urlNotes(w io.Writer, e exchange.Entry, where urlcheck.Server) {
	if e.Mode() != "url" || e.Params == nil {
		return
	}
	rep, err := urlcheck.Check(e.Params.URL, where)
	if err != nil {
		fmt.Fprintf(w, "mcp-tester: warning: %s: the URL %q is not valid: %s\n", questionName(e), e.Params.URL, termsafe.Line(err.Error()))
		return
	}
	host := termsafe.Line(rep.Host)
	if rep.UnicodeHost != "" {
		host += " (" + termsafe.Line(rep.UnicodeHost) + ")"
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "mcp-tester: warning: %s: URL host %s: %s\n", questionName(e), host, termsafe.Line(warn.Message))
	}
}
