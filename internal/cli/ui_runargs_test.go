package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/ui"
)

// A command the page runs reaches the server as the page's sessions do:
// a URL with the headers, transport and login flags mcp-tester ui was
// given; a command without them (they apply to URLs only, and the
// command refuses them); a profile only for its own server.
func TestUIRunArgs(t *testing.T) {
	o := &UIOptions{Conn: ConnOptions{Headers: []string{"Authorization: Bearer tok"}, Transport: "sse", Timeout: 30 * time.Second, Profile: "prod",
		Auth: LoginOptions{Identity: "bob", Scopes: []string{"admin"}}}}
	for _, tc := range []struct {
		t    ui.Target
		want string
	}{
		{ui.Target{URL: "http://127.0.0.1:1/mcp", Protocol: "2025-11-25"}, "-u http://127.0.0.1:1/mcp --protocol 2025-11-25 --timeout 30s -H Authorization: Bearer tok --transport sse --identity bob --scope admin"},
		{ui.Target{Command: "bin/deployer"}, "-c bin/deployer --timeout 30s"},
		{ui.Target{}, "-p prod --timeout 30s"},
	} {
		if got := strings.Join(o.runArgs(tc.t), " "); got != tc.want {
			t.Errorf("runArgs(%+v) = %s; want %s", tc.t, got, tc.want)
		}
	}
	// --connect-timeout goes along when given.
	o.Conn.ConnectTimeout = 2 * time.Minute
	if got, want := strings.Join(o.runArgs(ui.Target{Command: "bin/deployer"}), " "), "-c bin/deployer --timeout 30s --connect-timeout 2m0s"; got != want {
		t.Errorf("runArgs = %s; want %s", got, want)
	}
}
