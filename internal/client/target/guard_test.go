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

func TestBoundedEvents(t *testing.T) {
	read := func(stream string, max int64) (string, error, error) {
		var r refusal
		b := &boundedEvents{rc: io.NopCloser(strings.NewReader(stream)), max: max, refused: &r}
		got, err := io.ReadAll(b)
		return string(got), err, r.get()
	}
	// Many events, each within the bound, whatever their total; every line
	// ending the format allows ends a line and an event.
	ok := strings.Repeat("data: 1234\n\n", 50) + strings.Repeat("data: 1234\r\n\r\n", 50) +
		strings.Repeat("data: 1234\r\r", 50) + strings.Repeat(": a comment that is long\n\n", 50) + "data: 1234\n\n"
	if got, err, refused := read(ok, 25); err != nil || refused != nil || got != ok {
		t.Errorf("events within the bound: %d of %d bytes, %v, %v", len(got), len(ok), err, refused)
	}
	for name, stream := range map[string]string{
		"one endless data line":          "data: " + strings.Repeat("A", 100),
		"data lines and no blank line":   strings.Repeat("data: 12\n", 20),
		"CR-ended lines, no blank line":  strings.Repeat("data: 12\r", 20),
		"CRLF-ended lines, no blank one": strings.Repeat("data: 12\r\n", 20),
		"one endless comment":            ":" + strings.Repeat("c", 100),
		"comments and no blank line":     strings.Repeat(":c\n", 20),
	} {
		got, err, refused := read(stream, 20)
		if !errors.Is(err, ErrEventTooLarge) || !errors.Is(refused, ErrEventTooLarge) {
			t.Errorf("%s: %v (refusal kept: %v)", name, err, refused)
		}
		if len(got) > 40 {
			t.Errorf("%s: %d bytes read past a bound of 20 per event", name, len(got))
		}
	}
}

// FuzzBoundedEvents: whatever a server streams, boundedEvents passes on a
// prefix of it, all of it when no event (its bytes but line endings,
// between blank lines) is longer than the bound, and refuses it otherwise.
func FuzzBoundedEvents(f *testing.F) {
	for _, s := range []string{"data: 1\n\n", "data: 12345678\r\n\r\n", ":c\r:d\r\r", "data: 1\ndata: 2\n", "\r\n\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		const bound = 8
		var r refusal
		got, err := io.ReadAll(&boundedEvents{rc: io.NopCloser(strings.NewReader(stream)), max: bound, refused: &r})
		if !strings.HasPrefix(stream, string(got)) {
			t.Fatalf("passed on %q, not a prefix of %q", got, stream)
		}
		// The longest event, the line endings normalised to LF.
		norm := strings.ReplaceAll(strings.ReplaceAll(stream, "\r\n", "\n"), "\r", "\n")
		longest := 0
		for _, ev := range strings.Split(norm, "\n\n") {
			longest = max(longest, len(strings.ReplaceAll(ev, "\n", "")))
		}
		switch {
		case longest > bound && !errors.Is(err, ErrEventTooLarge):
			t.Fatalf("an event of %d bytes passed a bound of %d: %v", longest, bound, err)
		case longest <= bound && (err != nil || string(got) != stream):
			t.Fatalf("events of %d bytes at most refused: %v (%d of %d bytes)", longest, err, len(got), len(stream))
		}
	})
}
