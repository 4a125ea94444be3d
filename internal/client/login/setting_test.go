package login

import (
	"net/http"
	"strings"
	"testing"
)

// TestNoChallengeNamesTheHeaders: a 401 without a challenge asks for no
// OAuth login, and the error names the way to send credentials as the
// login does, or as Settings.Name says (a command line's flag).
func TestNoChallengeNamesTheHeaders(t *testing.T) {
	flag := func(s Setting) string {
		if s == SettingHeaders {
			return `-H "Name: value"`
		}
		return ""
	}
	for _, c := range []struct {
		nameOf func(Setting) string
		want   string
	}{
		{nil, "; send its credentials with the target's headers"},
		{func(Setting) string { return "" }, "; send its credentials with the target's headers"},
		{flag, `; send its credentials with -H "Name: value"`},
	} {
		l := &Login{Settings: Settings{Name: c.nameOf}}
		h, err := l.Handler("http://127.0.0.1:1/mcp")
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", nil)
		resp := &http.Response{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized", Header: http.Header{}, Request: req}
		err = h.Authorize(t.Context(), req, resp)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("err = %v, want it to end %q", err, c.want)
		}
	}
}
