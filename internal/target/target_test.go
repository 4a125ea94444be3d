package target

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	bad := map[string]*Target{
		"no server given":                     {},
		"not both":                            {Command: "x", URL: "http://x"},
		"must start with http:// or https://": {URL: "ftp://x"},
		`--transport "carrier-pigeon"`:        {URL: "http://x", Transport: "carrier-pigeon"},
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
