package target

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080/mcp")
	cases := map[string]bool{
		"http://127.0.0.1:8080/other":    true,
		"HTTP://127.0.0.1:8080/mcp":      true,
		"http://localhost:8080/mcp":      false, // another name for the same machine is another origin
		"http://127.0.0.1:8081/mcp":      false,
		"https://127.0.0.1:8080/mcp":     false,
		"http://127.0.0.1/mcp":           false,
		"http://evil.example:8080/mcp":   false,
		"http://127.0.0.1.evil:8080/":    false,
		"http://2130706433:8080/mcp":     false,
		"http://[::ffff:127.0.0.1]:8080": false,
	}
	for raw, want := range cases {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(target, u); got != want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", target, raw, got, want)
		}
	}
	plain, _ := url.Parse("http://example.com/mcp")
	for raw, want := range map[string]bool{"https://example.com/mcp": true, "https://example.com:443/": true, "https://example.com:8443/": false} {
		u, _ := url.Parse(raw)
		if got := sameOrigin(plain, u); got != want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", plain, raw, got, want)
		}
	}
}

func TestBoundedBody(t *testing.T) {
	var r refusal
	b := &boundedBody{rc: io.NopCloser(strings.NewReader("0123456789")), max: 10, refused: &r}
	if got, err := io.ReadAll(b); err != nil || string(got) != "0123456789" {
		t.Errorf("a body of exactly the bound: %q, %v", got, err)
	}
	b = &boundedBody{rc: io.NopCloser(strings.NewReader("0123456789A")), max: 10, refused: &r}
	got, err := io.ReadAll(b)
	if !errors.Is(err, ErrBodyTooLarge) || len(got) > 10 {
		t.Errorf("a body over the bound: %d bytes, %v", len(got), err)
	}
	if !errors.Is(r.get(), ErrBodyTooLarge) {
		t.Errorf("refusal not kept: %v", r.get())
	}
}
