package standin

import (
	"bytes"
	"strings"
	"testing"
)

// Each line of the client's input is passed on to the go-sdk, or reported
// and answered with a JSON-RPC error, never both, never neither; whatever
// the input.
func FuzzClientLines(f *testing.F) {
	for _, s := range []string{
		"",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"garbage\n",
		`{"jsonrpc":"2.0","id":null,"method":"tools/list"}` + "\n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		"no newline at the end",
		strings.Repeat("x", 70<<10) + "\n{}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var passed, answered bytes.Buffer
		bad := 0
		err := clientLines(bytes.NewReader(in), &passed, answered.Write, func(n int, why string) {
			bad++
			if n < 1 || why == "" || strings.ContainsAny(why, "\x1b\n") {
				t.Errorf("line %d reported as %q", n, why)
			}
		})
		if err == nil {
			t.Fatal("clientLines ended without the input's end")
		}
		if got := bytes.Count(answered.Bytes(), []byte("\n")); got != bad {
			t.Errorf("%d lines reported, %d answered", bad, got)
		}
		if passed.Len()+bad == 0 && len(bytes.TrimSpace(in)) > 0 {
			t.Errorf("input %q neither passed on nor reported", in)
		}
	})
}

// A line that is a JSON-RPC message goes on as it came; one that is not is
// answered with the parse error, a request with a null id with the invalid
// request error.
func TestClientLines(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\ngarbage\n{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n"
	var passed, answered bytes.Buffer
	var lines []int
	_ = clientLines(strings.NewReader(in), &passed, answered.Write, func(n int, why string) { lines = append(lines, n) })
	if passed.String() != "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n" {
		t.Errorf("passed on %q", passed.String())
	}
	if want := string(parseErrorAnswer) + string(invalidRequestAnswer); answered.String() != want {
		t.Errorf("answered %q, want %q", answered.String(), want)
	}
	if len(lines) != 2 || lines[0] != 2 || lines[1] != 3 {
		t.Errorf("reported lines %v, want [2 3]", lines)
	}
}
