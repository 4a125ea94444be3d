package asktest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

// A server that sends the client on to another origin is not followed,
// and the failure names the way to talk to that server in asktest's terms.
func TestOtherOriginNamesAsktestURL(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the request reached the other server")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/capture", http.StatusTemporaryRedirect))
	defer srv.Close()
	ft := run("redirected", func(ft *T) {
		asktest.NewClient(ft, asktest.URL(srv.URL+"/mcp"), nil)
	})
	if !ft.Failed() || !strings.Contains(ft.Errors(), "; to talk to that server, name it with asktest.URL") {
		t.Errorf("failed %v:\n%s", ft.Failed(), ft.Errors())
	}
}
