package target

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	bad := map[string]*Target{
		"no server given":                     {},
		"give one server":                     {Command: "x", URL: "http://x"},
		"must start with http:// or https://": {URL: "ftp://x"},
		`Transport "carrier-pigeon"`:          {URL: "http://x", Transport: "carrier-pigeon"},
		`header "nocolon"`:                    {URL: "http://x", Headers: []string{"nocolon"}},
	}
	for want, tg := range bad {
		if err := tg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", tg, err, want)
		}
	}
	if err := (&Target{URL: "https://x/mcp", Headers: []string{"Authorization: Bearer a:b"}}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders([]string{"Authorization: Bearer a:b", "X-Two:  2 ", "X-Two: 3"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Get("Authorization") != "Bearer a:b" || len(h.Values("X-Two")) != 2 || h.Values("X-Two")[0] != "2" {
		t.Errorf("headers = %v", h)
	}
}

func TestShellLine(t *testing.T) {
	cases := map[string]string{
		"./deployer":                "exec ./deployer",
		"npx -y some-server --flag": "exec npx -y some-server --flag",
		"cd srv && ./run":           "cd srv && ./run",
		"FOO=1 ./server":            "FOO=1 ./server",
		"./server 2>/dev/null":      "./server 2>/dev/null",
		"node 'my server.js'":       "node 'my server.js'",
	}
	for in, want := range cases {
		if got := shellLine(in); got != want {
			t.Errorf("shellLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTailKeepsLastLines(t *testing.T) {
	tl := newTail(16)
	tl.Write([]byte("first line\nsecond\nthird\n"))
	if got := tl.String(); got != "second\nthird" {
		t.Errorf("tail = %q", got)
	}
}

// lineAtATime reads text a line at a time, as a pipe gives what a server
// writes line by line; it has no WriteTo, as a pipe has none for io.Copy.
type lineAtATime struct{ text string }

func (r *lineAtATime) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, io.EOF
	}
	line := r.text
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	n := copy(p, line)
	r.text = r.text[n:]
	return n, nil
}

// TestTailReadFrom: a command's stderr, copied into its tail as os/exec
// copies it, keeps its last lines within its bound however long it is
// (what the copy allocates, a few times rather than a buffer per write,
// is BenchmarkTailReadFrom's figure).
func TestTailReadFrom(t *testing.T) {
	text := tailText()
	tl := newTail(8 << 10)
	if _, err := io.Copy(tl, &lineAtATime{text: text}); err != nil {
		t.Fatal(err)
	}
	got := tl.String()
	if !strings.HasSuffix(got, "\nlog line 19999") || strings.Contains(got, "log line 1\n") || !strings.HasPrefix(got, "log line ") {
		t.Errorf("tail = …%q", got[max(0, len(got)-40):])
	}
	if len(got) > 8<<10 {
		t.Errorf("tail of %d bytes, more than its bound", len(got))
	}
	tl = newTail(16)
	_, _ = tl.Write([]byte("0123456789abcdefghij\nlast\n"))
	if got := tl.String(); got != "last" {
		t.Errorf("a write longer than the tail: %q", got)
	}
}

// tailText is a command's stderr of 20,000 lines.
func tailText() string {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "log line %d\n", i)
	}
	return b.String()
}

// BenchmarkTailReadFrom: 20,000 lines of stderr copied into a tail as
// os/exec copies them (make bench: allocs/op, a few however long the text).
func BenchmarkTailReadFrom(b *testing.B) {
	text := tailText()
	b.ReportAllocs()
	for b.Loop() {
		tl := newTail(8 << 10)
		if _, err := io.Copy(tl, &lineAtATime{text: text}); err != nil {
			b.Fatal(err)
		}
	}
}
