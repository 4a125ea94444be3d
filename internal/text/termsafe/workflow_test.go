package termsafe_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/text/termsafe"
)

// writeIn writes in to w in writes of size bytes, then flushes.
func writeIn(t testing.TB, w *termsafe.Writer, in string, size int) {
	t.Helper()
	for i := 0; i < len(in); i += size {
		end := min(i+size, len(in))
		if n, err := w.Write([]byte(in[i:end])); err != nil || n != end-i {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// commandIn names the first line of out a CI runner reads as a workflow
// command (lines end at \n and \r), or "".
func commandIn(out string) string {
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if termsafe.WorkflowCommand(l) {
			return l
		}
	}
	return ""
}

// A server's text that would write an annotation, mask a value or stop
// the reading of commands is defused on its way out, whatever the writes
// are cut into; other text passes as it is.
func TestWriterDefusesWorkflowCommands(t *testing.T) {
	in := "report\n::error file=x::forged\n  ::warning::indented\n:not a command\n::\nok ::inside\n\t::add-mask::x" +
		"\n\u00a0::error::nbsp\n \u3000 ::stop-commands::t\r\nsee ##[error]legacy ###[warning]x #[ok] ##\n\u2003x\n::"
	want := "report\n| ::error file=x::forged\n|   ::warning::indented\n:not a command\n| ::\nok ::inside\n| \t::add-mask::x" +
		"\n| \u00a0::error::nbsp\n|  \u3000 ::stop-commands::t\nsee ##\\[error]legacy ###\\[warning]x #[ok] ##\n\u2003x\n| ::"
	for _, size := range []int{1, 2, 3, 7, len(in)} {
		var out bytes.Buffer
		writeIn(t, termsafe.NewWriter(&out), in, size)
		if out.String() != want {
			t.Errorf("writes of %d bytes:\ngot  %q\nwant %q", size, out.String(), want)
		}
	}
}

// A lone carriage return, which the runner reads as a line end, is shown
// escaped: it starts no line.
func TestWriterCarriageReturnStartsNoCommand(t *testing.T) {
	var out bytes.Buffer
	writeIn(t, termsafe.NewWriter(&out), "x\r::error::cr\n", 1)
	if l := commandIn(out.String()); l != "" || out.String() != `x\x0d::error::cr`+"\n" {
		t.Fatalf("%q (command %q)", out.String(), l)
	}
}

// Flushed in the middle of a line's start, the line is still decided when
// it goes on.
func TestWriterFlushKeepsTheLineStart(t *testing.T) {
	var out bytes.Buffer
	w := termsafe.NewWriter(&out)
	w.Write([]byte("  :"))
	w.Flush()
	w.Write([]byte(":error::x\n"))
	if l := commandIn(out.String()); l != "" {
		t.Fatalf("%q reads as a command", l)
	}
}

// JSON keeps its value: "##[" inside a string is written with \u005b.
func TestJSONWriterDefusesLegacyCommands(t *testing.T) {
	doc, _ := json.MarshalIndent(map[string]any{"text": "::error::x\n##[error]y #", "k##": []string{"##"}}, "", "  ")
	for _, size := range []int{1, 2, 5, len(doc)} {
		var out bytes.Buffer
		writeIn(t, termsafe.NewJSONWriter(&out), string(doc), size)
		if l := commandIn(out.String()); l != "" {
			t.Fatalf("writes of %d: %q reads as a command", size, l)
		}
		var a, b any
		json.Unmarshal(doc, &a)
		if err := json.Unmarshal(out.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if !bytes.Equal(x, y) {
			t.Fatalf("the value changed: %s became %s", x, y)
		}
	}
	if got := string(termsafe.JSON([]byte(`["##[x"]`))); got != `["##\u005bx"]` {
		t.Errorf("JSON: %s", got)
	}
}

// Azure Pipelines' "##vso[" and TeamCity's "##teamcity[" (in any letter
// case, at a line's start or within it) are defused as "##[" is, in text
// and in JSON, whatever the writes are cut into.
func TestWriterDefusesOtherRunnersCommands(t *testing.T) {
	in := "##vso[task.setvariable variable=x]y\n##teamcity[setParameter name='x' value='y']\nsee ##VSO[task.complete result=Failed] and ##TeamCity[buildStatus text='x']\nvso[ok] teamcity[ok] #vso[ok]\n"
	want := "##vso\\[task.setvariable variable=x]y\n##teamcity\\[setParameter name='x' value='y']\nsee ##VSO\\[task.complete result=Failed] and ##TeamCity\\[buildStatus text='x']\nvso[ok] teamcity[ok] #vso[ok]\n"
	for _, size := range []int{1, 2, 3, 5, 11, len(in)} {
		var out bytes.Buffer
		writeIn(t, termsafe.NewWriter(&out), in, size)
		if out.String() != want {
			t.Errorf("writes of %d bytes:\ngot  %q\nwant %q", size, out.String(), want)
		}
		doc, _ := json.Marshal(map[string]string{"text": in})
		doc = bytes.ReplaceAll(doc, []byte(`\n`), []byte("\n")) // lines a runner reads
		out.Reset()
		writeIn(t, termsafe.NewJSONWriter(&out), string(doc), size)
		if l := commandIn(out.String()); l != "" {
			t.Errorf("JSON in writes of %d: %q reads as a command", size, l)
		}
	}
	for _, l := range []string{"##vso[task.setvariable]", "x ##teamcity[message]", "##Vso[x]"} {
		if !termsafe.WorkflowCommand(l) {
			t.Errorf("%q is not taken for a command", l)
		}
	}
	if got := string(termsafe.JSON([]byte(`["##vso[x","##teamcity[y"]`))); got != `["##vso\u005bx","##teamcity\u005by"]` {
		t.Errorf("JSON: %s", got)
	}
}

func FuzzWriterCommands(f *testing.F) {
	f.Add("a\n::error::x\n  ::y\n:z", 3)
	f.Add("##vso[task.setvariable]\nx##teamcity[a]##TEAMCITY", 4)
	f.Add("a\r\u00a0::error::x ##[error]y", 2)
	f.Fuzz(func(t *testing.T, in string, size int) {
		if size < 1 || size > 64 {
			size = 1 + size&63
		}
		var out bytes.Buffer
		writeIn(t, termsafe.NewWriter(&out), in, size)
		if l := commandIn(out.String()); l != "" {
			t.Fatalf("%q: a line reads as a command: %q", in, l)
		}
		var whole bytes.Buffer
		writeIn(t, termsafe.NewWriter(&whole), in, max(1, len(in)))
		if whole.String() != out.String() {
			t.Fatalf("%q: in writes of %d %q, whole %q", in, size, out.String(), whole.String())
		}
	})
}

// A line that starts with a long run of white space (a server's text can
// hold megabytes of it) is decided in one pass: each byte is looked at
// once, and the line is still defused when "::" follows.
func TestWriterLongLeadingSpaceEnds(t *testing.T) {
	var out bytes.Buffer
	w := termsafe.NewWriter(&out)
	done := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte(strings.Repeat(" ", 4<<20) + "::add-mask::x\n"))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a line of 4 MiB of leading white space was not written")
	}
	if !strings.HasPrefix(out.String(), "| ") || termsafe.WorkflowCommand(strings.TrimSuffix(out.String(), "\n")) {
		t.Errorf("the line was not defused: %.40q…", out.String())
	}
}
