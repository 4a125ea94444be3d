package cli

import (
	"testing"
	"time"
)

func TestNewAuthCmds(t *testing.T) {
	const url = "http://127.0.0.1:1/mcp"
	runFlagCases(t, newAuthLoginCmd, []flagCase[AuthLoginOptions]{
		{name: "a URL", args: []string{url},
			want: AuthLoginOptions{Server: url, Conn: ConnOptions{Timeout: 30 * time.Second}}},
		{name: "every login flag", args: []string{"staging", "--identity", "bob", "--no-browser", "--scope", "a", "--scope", "b", "-H", "X: 1",
			"--client-id", "c", "--client-metadata-url", "https://example.com/c.json", "--redirect-url", "http://127.0.0.1:8976/cb", "--login-timeout", "1m", "--timeout", "5s"},
			want: AuthLoginOptions{Server: "staging", Conn: ConnOptions{Headers: []string{"X: 1"}, Timeout: 5 * time.Second, Auth: LoginOptions{
				Identity: "bob", NoBrowser: true, Scopes: []string{"a", "b"}, ClientID: "c", ClientMetadataURL: "https://example.com/c.json",
				RedirectURL: "http://127.0.0.1:8976/cb", Timeout: time.Minute}}}},
		{name: "machines", args: []string{url, "--client-credentials", "--client-id", "c", "--client-key", "k.pem"},
			want: AuthLoginOptions{Server: url, Conn: ConnOptions{Timeout: 30 * time.Second, Auth: LoginOptions{ClientCredentials: true, ClientID: "c", ClientKey: "k.pem"}}}},
		{name: "no server", args: nil, wantErr: "accepts 1 arg"},
		{name: "no elicitation flags", args: []string{url, "--elicit", "accept"}, wantErr: "unknown flag: --elicit"},
	})
	runFlagCases(t, newAuthStatusCmd, []flagCase[AuthStatusOptions]{
		{name: "every login", args: nil, want: AuthStatusOptions{Format: "text"}},
		{name: "one server", args: []string{url, "--identity", "bob", "--format", "json"}, want: AuthStatusOptions{Server: url, Identity: "bob", Format: "json"}},
		{name: "two servers", args: []string{url, url}, wantErr: "accepts at most 1 arg"},
	})
	runFlagCases(t, newAuthLogoutCmd, []flagCase[AuthLogoutOptions]{
		{name: "the default identity", args: []string{url}, want: AuthLogoutOptions{Server: url}},
		{name: "all", args: []string{url, "--all"}, want: AuthLogoutOptions{Server: url, All: true}},
		{name: "no server", args: nil, wantErr: "accepts 1 arg"},
	})
}
