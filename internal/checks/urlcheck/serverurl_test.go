package urlcheck

import "testing"

// Every way a server URL can be wrong is named, and good ones pass.
func TestServerURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/mcp":       "",
		"https://example.com/mcp":         "",
		"HTTPS://Example.com":             "",
		"http://[::1]:8080/mcp":           "",
		"http://[::1]/mcp":                "",
		"http://user:pw@host:443/mcp?x=1": "",
		"http://127.0.0.1:65535x/mcp":     "port 65535x is no TCP port (1 to 65535)",
		"http://127.0.0.1:70000/mcp":      "port 70000 is no TCP port (1 to 65535)",
		"http://127.0.0.1:0/mcp":          "port 0 is no TCP port (1 to 65535)",
		"http://127.0.0.1:/mcp":           "the port after the host's ':' is missing",
		"http://[::1]:99999/mcp":          "port 99999 is no TCP port (1 to 65535)",
		"http:///mcp":                     "it names no host",
		"ftp://x/mcp":                     "must start with http:// or https://",
		"127.0.0.1:8080/mcp":              "must start with http:// or https://",
		"http://a b/mcp":                  "it holds a space at character 9: take it out (in a path or query, write it %20)",
		"http://h:9 /mcp":                 "it holds a space at character 11: take it out (in a path or query, write it %20)",
		" http://h:9/mcp":                 "it holds a space at character 1: take it out (in a path or query, write it %20)",
		"http://h:9/mcp\t":                "it holds a control character (U+0009) at character 15: take it out",
		"http://hé:9/\u00a0":              "it holds a space character (U+00A0) at character 13: take it out",
		"http://h:9/a\x7f":                "it holds a control character (U+007F) at character 13: take it out",
		"":                                "it is empty: give http://HOST:PORT/PATH",
		"http://h%zz/mcp":                 `it does not read as a URL: invalid URL escape "%zz"`,
	} {
		err := ServerURL(raw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("ServerURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
