package htmlreport_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/report/htmlreport"
)

// subjectResults is a tool's results of every rule but the server's, each
// of status with note.
func subjectResults(status audit.Status, note string) []*audit.Result {
	var out []*audit.Result
	for _, r := range audit.Rules() {
		if r != audit.RulePlacement {
			out = append(out, &audit.Result{Rule: r, Status: status, Note: note})
		}
	}
	return out
}

// manyQuiet is a report of a server whose one tool asks, sixty ask
// nothing (one named with markup, one whose call ends in an error), and
// three destructive tools are skipped for two reasons.
func manyQuiet() *audit.Report {
	r := &audit.Report{Server: "many", Target: "command many", Protocol: "2026-07-28"}
	r.Subjects = append(r.Subjects, &audit.Subject{Kind: "tool", Name: "ask", Asks: true, Results: subjectResults(audit.Pass, "")})
	for i := range 58 {
		r.Subjects = append(r.Subjects, &audit.Subject{Kind: "tool", Name: fmt.Sprintf("quiet_%02d", i), Results: subjectResults(audit.NA, "asks nothing")})
	}
	r.Subjects[5].Results[0].Note = "asks nothing: the call ends in an isError result"
	r.Subjects = append(r.Subjects,
		&audit.Subject{Kind: "prompt", Name: `<b onclick="x()">bold</b>`, Results: subjectResults(audit.NA, "asks nothing")},
		&audit.Subject{Kind: "resource", Name: "note://1", Results: subjectResults(audit.NA, "asks nothing")},
	)
	hint := func(name string) string { return fmt.Sprintf("; pass %s %s to audit it", audit.OptionInclude, name) }
	r.Subjects = append(r.Subjects,
		&audit.Subject{Kind: "tool", Name: "drop_a", Skipped: "destructive (destructiveHint true)" + hint("drop_a")},
		&audit.Subject{Kind: "tool", Name: "drop_b", Skipped: "destructive (destructiveHint true)" + hint("drop_b")},
		&audit.Subject{Kind: "tool", Name: "wipe", Skipped: "destructive (no annotations: destructiveHint defaults to true)" + hint("wipe")},
		&audit.Subject{Kind: "server", Results: []*audit.Result{{Rule: audit.RulePlacement, Status: audit.Pass}}},
	)
	return r
}

// The subjects that ask nothing are one row of the matrix, as in the text
// report, with every one of them named (escaped) in a list to open, and
// one verdict of each rule; the subject that asks keeps its row and its
// verdicts; the skipped ones are a row per reason.
func TestAuditFoldsWhatAsksNothing(t *testing.T) {
	var b bytes.Buffer
	if err := htmlreport.WriteAudit(&b, fixedMeta, manyQuiet()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	matrix := page[strings.Index(page, `<section id="matrix">`):strings.Index(page, `<section id="rules">`)]
	if n := strings.Count(matrix, "<tr"); n != 6 {
		t.Errorf("%d rows in the matrix, want 6 (the head, the tool that asks, the server, asks nothing, two reasons of skipping):\n%s", n, matrix)
	}
	for _, want := range []string{
		`<tr><td class="subject">tool &#34;ask&#34;</td>`,
		`<tr><td class="subject">server</td>`,
		`<tr class="folded" id="asks-nothing"><td class="subject"><details><summary><strong>asks nothing (60)</strong>: tool &#34;quiet_00&#34;, tool &#34;quiet_01&#34;, tool &#34;quiet_02&#34;, and 57 more</summary>`,
		`<li>tool &#34;quiet_04&#34; <span class="note">(the call ends in an isError result)</span></li>`,
		`<li>tool &#34;quiet_57&#34;</li>`,
		`<li>prompt &#34;&lt;b onclick=\&#34;x()\&#34;&gt;bold&lt;/b&gt;&#34;</li>`,
		`<li>resource &#34;note://1&#34;</li></ul></details></td><td class="status-na folded" colspan="12">every rule n/a</td></tr>`,
		`<strong>skipped (2)</strong>: tool &#34;drop_a&#34;, tool &#34;drop_b&#34;</summary>`,
		`skipped: destructive (destructiveHint true); pass Include NAME to audit one</td>`,
		`<strong>skipped (1)</strong>: tool &#34;wipe&#34;</summary>`,
		`skipped: destructive (no annotations: destructiveHint defaults to true); pass Include wipe to audit it</td>`,
	} {
		want = strings.ReplaceAll(want, "Include", audit.OptionInclude.String())
		if !strings.Contains(matrix, want) {
			t.Errorf("the matrix lacks %s", want)
		}
	}
	if strings.Contains(page, "<b ") {
		t.Error("a name sent by the server is markup on the page")
	}
	if n := strings.Count(matrix, "<li>"); n != 63 {
		t.Errorf("%d subjects listed in the folded rows, want 60 that ask nothing and 3 skipped", n)
	}
	if n := strings.Count(page, `class="verdict folded"`); n != 11 {
		t.Errorf("%d folded verdicts, want one for each of the 11 rules of a subject", n)
	}
	for _, want := range []string{
		`<tr id="rule-1-asks-nothing" class="verdict folded"><td class="subject"><a href="#asks-nothing">asks nothing (60)</a></td><td class="status-na">n/a</td><td><span class="note">asks nothing (59); asks nothing: the call ends in an isError result (1)</span>`,
		`<tr id="rule-2-asks-nothing" class="verdict folded"><td class="subject"><a href="#asks-nothing">asks nothing (60)</a></td><td class="status-na">n/a</td><td><span class="note">asks nothing</span>`,
		`<tr id="rule-1-subject-1" class="verdict">`,
		`60 n/a or incomplete`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the rules lack %s", want)
		}
	}
	if strings.Contains(page, "quiet_00&#34;</td>") {
		t.Error("a subject that asks nothing has a row or a verdict of its own")
	}
}

// The page says what the listing client declared, and what it did not
// that a server may offer tools by, as the text report does.
func TestAuditSaysWhatWasDeclared(t *testing.T) {
	r := manyQuiet()
	r.Declared = []string{"elicitation (form, url)"}
	var b strings.Builder
	if err := htmlreport.WriteAudit(&b, fixedMeta, r); err != nil {
		t.Fatal(err)
	}
	want := `<p id="declared">listed by a client that declared elicitation (form, url); not sampling or roots: tools a server offers only to clients that declare them are not listed (Samples, Roots declare them)</p>`
	if !strings.Contains(b.String(), want) {
		t.Errorf("the page does not say what was declared: want %s", want)
	}
}

// The page says, as the text report does, how many of the subjects that
// asked nothing were called with arguments the audit made up, and how to
// give others.
func TestAuditSaysArgumentsWereMadeUp(t *testing.T) {
	r := manyQuiet()
	r.Subjects[1].ArgsMadeUp = true
	r.Subjects[2].ArgsMadeUp = true
	var b strings.Builder
	if err := htmlreport.WriteAudit(&b, fixedMeta, r); err != nil {
		t.Fatal(err)
	}
	want := "the audit made up the arguments of 2 of them, which may be why they asked nothing: give ones that make them ask with Args NAME=JSON"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the page does not say the arguments were made up: want %s", want)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\n  "+want+"\n") {
		t.Errorf("the text report does not say it on the line after the asks-nothing line:\n%s", text.String())
	}
}
