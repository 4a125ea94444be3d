package target

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOtherOriginNamesTheURL: a request sent on to another origin is
// refused, and the error names the way to talk to that server as Target's
// field, or as the caller's Name says (a command line's flag).
func TestOtherOriginNamesTheURL(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the request reached the other server")
	}))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/capture", http.StatusFound))
	defer srv.Close()
	flag := func(o Option) string {
		if o == OptionURL {
			return "-u"
		}
		return ""
	}
	for _, c := range []struct {
		nameOf func(Option) string
		want   string
	}{
		{nil, "; to talk to that server, name it with Target.URL"},
		{func(Option) string { return "" }, "; to talk to that server, name it with Target.URL"},
		{flag, "; to talk to that server, name it with -u"},
	} {
		tg := &Target{URL: srv.URL + "/mcp", Name: c.nameOf}
		resp, err := tg.HTTPClient().Get(tg.URL)
		if err == nil {
			resp.Body.Close()
			t.Fatal("the redirect to another origin was followed")
		}
		var oe *OtherOriginError
		if !errors.As(err, &oe) || !strings.HasSuffix(oe.Error(), c.want) {
			t.Errorf("err = %v, want an OtherOriginError ending %q", err, c.want)
		}
	}
	if got := Option(0).String(); got != "Option(0)" {
		t.Errorf("Option(0) = %q", got)
	}
}
