package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Bad invocations stop before listening, with a message that says what to do.
func TestRunRefusesBadFlags(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no provider":   {[]string{"-user", "alice:alice-mcp-token:pw"}, "-fake-github ADDR"},
		"bad user":      {[]string{"-user", "alice"}, "NAME:TOKEN:PASSWORD"},
		"no users":      {[]string{"-fake-github", "127.0.0.1:0"}, "no users"},
		"missing file":  {[]string{"-users-file", "/nonexistent/users"}, "users file"},
		"bad key file":  {[]string{"-key-file", "/nonexistent/key", "-user", "alice:alice-mcp-token:pw"}, "key file"},
		"unknown flag":  {[]string{"-no-such-flag"}, "no-such-flag"},
		"plain http":    {[]string{"-fake-github", "127.0.0.1:0", "-public-url", "http://mcp.example.com", "-user", "alice:alice-mcp-token:pw"}, "https"},
		"relative url":  {[]string{"-fake-github", "127.0.0.1:0", "-public-url", "mcp.example.com", "-user", "alice:alice-mcp-token:pw"}, "absolute URL"},
		"short token":   {[]string{"-user", "alice:tok:pw"}, "at least 8"},
		"empty secret":  {[]string{"-user", "alice:alice-mcp-token:"}, "NAME:TOKEN:PASSWORD"},
		"missing parts": {[]string{"-user", "alice:alice-mcp-token"}, "NAME:TOKEN:PASSWORD"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), c.args, &stderr)
			if err == nil {
				t.Fatal("run accepted the flags")
			}
			if msg := err.Error() + stderr.String(); !strings.Contains(msg, c.want) {
				t.Fatalf("error %q does not mention %q", msg, c.want)
			}
		})
	}
}
