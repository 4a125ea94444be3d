package audit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// allNA is a subject's eleven results, every one n/a with note.
func allNA(note string) []*Result {
	var out []*Result
	for _, r := range subjectRules() {
		out = append(out, &Result{Rule: r, Status: NA, Note: note})
	}
	return out
}

// foldReport is a report of a server with many subjects that ask nothing
// (one named to forge a line), a few skipped for two reasons, one the
// audit could not call and one that asks.
func foldReport() *Report {
	r := &Report{Server: "many", Target: "command \"many\"", Protocol: "2026-07-28"}
	asks := &Subject{Kind: "tool", Name: "ask", Asks: true}
	for _, rule := range subjectRules() {
		asks.Results = append(asks.Results, &Result{Rule: rule, Status: Pass})
	}
	r.Subjects = append(r.Subjects, asks)
	for i := range 50 {
		r.Subjects = append(r.Subjects, &Subject{Kind: "tool", Name: fmt.Sprintf("quiet_%02d", i), Results: allNA("asks nothing")})
	}
	r.Subjects[2].Results[3].Note = "asks nothing: the call ends in an isError result"
	r.Subjects[40].Results[3].Note = "asks nothing: the call ends in a JSON-RPC error"
	r.Subjects = append(r.Subjects,
		&Subject{Kind: "prompt", Name: "evil\x1b[2J\nscore: 100%", Results: allNA("asks nothing")},
		&Subject{Kind: "resource", Name: "note://1", Results: allNA("asks nothing")},
	)
	for _, name := range []string{"drop_a", "drop_b", "drop_c"} {
		r.Subjects = append(r.Subjects, &Subject{Kind: "tool", Name: name, Skipped: "destructive (destructiveHint true)" + skipHint("Include", name)})
	}
	r.Subjects = append(r.Subjects,
		&Subject{Kind: "tool", Name: "wipe", Skipped: "destructive (no annotations: destructiveHint defaults to true)" + skipHint("Include", "wipe")},
		&Subject{Kind: "tool", Name: "survey", NotCalled: "it runs only as a task", Results: allNA("not called: it runs only as a task")},
		&Subject{Kind: "server", Results: []*Result{{Rule: RulePlacement, Status: Pass}}},
	)
	return r
}

// Every subject that asks nothing is named on one line, not in a block of
// its own; the first foldShown by name, with how a call ended when not
// normally, then how many more. The skipped tools are a line per reason.
func TestTextFoldsWhatAsksNothing(t *testing.T) {
	var b bytes.Buffer
	if err := foldReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 30 {
		t.Errorf("%d lines for 60 subjects, want at most 30:\n%s", len(lines), out)
	}
	var folded []string
	for _, l := range lines {
		if strings.HasPrefix(l, "asks nothing") {
			folded = append(folded, l)
		}
	}
	if len(folded) != 1 {
		t.Fatalf("%d lines name what asks nothing, want 1:\n%s", len(folded), out)
	}
	want := `asks nothing (52), every rule n/a: tool "quiet_00", tool "quiet_01" (the call ends in an isError result), tool "quiet_02", `
	if !strings.HasPrefix(folded[0], want) {
		t.Errorf("the folded line:\n%s\nwant it to start\n%s", folded[0], want)
	}
	if !strings.HasSuffix(folded[0], `tool "quiet_19", and 32 more (1 of them not ending in a normal result)`) {
		t.Errorf("the folded line does not end with the 20th and how many more:\n%s", folded[0])
	}
	for _, name := range []string{"quiet_20", "quiet_49", "note://1", "evil"} {
		if strings.Contains(out, name) {
			t.Errorf("%s is named, beyond the first 20:\n%s", name, out)
		}
	}
	for _, want := range []string{
		"\nskipped (3), destructive (destructiveHint true): tool \"drop_a\", tool \"drop_b\", tool \"drop_c\"; pass Include NAME to audit one\n",
		"\nskipped (1), destructive (no annotations: destructiveHint defaults to true): tool \"wipe\"; pass Include wipe to audit it\n",
		// One the audit could not call keeps its block: it did not ask nothing.
		"\ntool \"survey\"\n  n/a (all 11 rules): not called: it runs only as a task\n",
		"\ntool \"ask\"\n   1  tampered requestState is refused",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "n/a (all") != 1 {
		t.Errorf("a subject that asks nothing has a block of its own:\n%s", out)
	}

	// The JSON report keeps every subject, each with its results.
	b.Reset()
	if err := foldReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"quiet_00"`, `"quiet_49"`, `"note://1"`, `"drop_c"`} {
		if !strings.Contains(b.String(), `"name": `+name) {
			t.Errorf("the JSON report lacks %s", name)
		}
	}
}

// What the server named a subject that asks nothing is escaped on the
// folded line: it can neither drive the terminal nor start a line.
func TestTextFoldEscapesNames(t *testing.T) {
	r := &Report{Server: "s", Protocol: "2026-07-28", Subjects: []*Subject{
		{Kind: "prompt", Name: "evil\x1b[2J\nscore: 100%", Results: allNA("asks nothing: the call ends in a JSON-RPC error (bad\r\nscore: 100%)")},
		{Kind: "tool", Name: "x\u202ey", Skipped: "destructive (destructiveHint true)" + skipHint("Include", "x\u202ey")},
	}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\r\u202e") || strings.Contains(out, "\nscore: 100%") {
		t.Errorf("server text reached the report as it is:\n%q", out)
	}
	if !strings.Contains(out, "\nasks nothing (1), every rule n/a: prompt \"evil\\x1b[2J\\nscore: 100%\" (the call ends in a JSON-RPC error (bad score: 100%))\n") {
		t.Errorf("the folded line:\n%s", out)
	}
}
