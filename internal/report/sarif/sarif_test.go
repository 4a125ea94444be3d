package sarif_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/report/sarif"
	"github.com/askback/askback/internal/report/sarif/sariftest"
)

func sample() *sarif.Log {
	return &sarif.Log{Runs: []*sarif.Run{{
		Tool:   sarif.Tool{Name: "mcp-tester", Version: "v0.9.1", InformationURI: "https://github.com/askback/askback"},
		Anchor: "catalog.json",
		Rules: []sarif.Rule{
			{ID: "z-last", Short: "sorted last", Level: sarif.Note},
			{ID: "a-first", Short: "sorted first", Full: "a longer text", Help: "what to do", HelpURI: "https://github.com/askback/askback/blob/main/docs/ci.md",
				Level: sarif.Error, Tags: []string{"security", "mcp", "security"}, SecuritySeverity: "7.5"},
		},
		Results: []sarif.Result{
			{RuleID: "z-last", Message: "in a file", Locations: []sarif.Location{{File: "b dir/x.mcp", Line: 9, Column: 2, EndLine: 9, EndColumn: 12, Description: "call_tool deploy"}}},
			{RuleID: "a-first", Level: sarif.Warning, Message: "logical \x1b[31m\u202e", Locations: []sarif.Location{{Path: `tools["a.b"].description`, Kind: "member"}},
				Properties: map[string]any{"class": "review", "old": "x", "new": "y"}},
			{RuleID: "a-first", Message: "both", Locations: []sarif.Location{{File: "catalog.json", Line: 3, Path: "tools.deploy", Kind: "tool"}}},
			{RuleID: "z-last", Message: "about the whole server", Locations: []sarif.Location{{Path: "server", Kind: "module"}}},
		},
	}}}
}

// Every log the package writes is valid SARIF 2.1.0 by the published
// schema, with its rules sorted and its results referring to them by
// index.
func TestWriteIsValidSARIF(t *testing.T) {
	b, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	sariftest.Validate(t, b)
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct {
						ID               string
						FullDescription  struct{ Text string }
						Help             struct{ Text string }
						Properties       map[string]any
						ShortDescription struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Version != "0.9.1" {
		t.Errorf("version %q, want the tag's number 0.9.1", run.Tool.Driver.Version)
	}
	if run.Tool.Driver.Rules[0].ID != "a-first" || run.Tool.Driver.Rules[1].ID != "z-last" {
		t.Errorf("rules not sorted by id: %+v", run.Tool.Driver.Rules)
	}
	if r := run.Tool.Driver.Rules[1]; r.FullDescription.Text != "sorted last" || r.Help.Text != "sorted last" {
		t.Errorf("a rule without full description and help: they should default to the short one: %+v", r)
	}
	if tags := run.Tool.Driver.Rules[0].Properties["tags"]; len(tags.([]any)) != 2 {
		t.Errorf("tags %v: want sorted, each once", tags)
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %q: ruleIndex %d points elsewhere", r.RuleID, r.RuleIndex)
		}
	}
	for _, r := range run.Results {
		if r.Message.Text == "about the whole server" && r.Level != "note" {
			t.Errorf("the result without a level of its own: %q, want its rule's (note)", r.Level)
		}
	}
}

// A server's text in a message reaches the log with its escape sequences
// and bidi controls as \u escapes, never raw.
func TestWriteEscapesControlCharacters(t *testing.T) {
	b, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(b, '\x1b') || bytes.ContainsRune(b, '\u202e') {
		t.Fatalf("raw control characters in the log:\n%s", b)
	}
	if !bytes.Contains(b, []byte(`logical \u001b\\[31m\u202e`)) {
		t.Fatalf("the message is not kept as \\u escapes:\n%s", b)
	}
}

// A message quoting a server's text cannot become a link: a SARIF reader
// takes "[text](target)" for an embedded link, so brackets are escaped,
// and a backslash the server put before one cannot undo the escape.
func TestWriteMessagesLinkNowhere(t *testing.T) {
	log := sample()
	log.Runs[0].Results[0].Message = `see [the docs](https://attacker.example) \[x\]`
	log.Runs[0].Results[0].Locations[0].Description = "[1](1)"
	b, err := log.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				Message   struct{ Text string }
				Locations []struct{ Message struct{ Text string } }
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range doc.Runs[0].Results {
		texts = append(texts, r.Message.Text)
		for _, l := range r.Locations {
			texts = append(texts, l.Message.Text)
		}
	}
	for _, want := range []string{`see \[the docs\](https://attacker.example) \\\[x\\\]`, `\[1\](1)`} {
		if !slices.Contains(texts, want) {
			t.Errorf("no message %q in %q", want, texts)
		}
	}
}

// The same findings in any order give the same bytes.
func TestWriteIsDeterministic(t *testing.T) {
	a, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	l := sample()
	rs := l.Runs[0].Results
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	l.Runs[0].Rules[0], l.Runs[0].Rules[1] = l.Runs[0].Rules[1], l.Runs[0].Rules[0]
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("the order of rules and results changed the log:\n%s\n---\n%s", a, b)
	}
}

// A log that would not be valid SARIF is refused with what is wrong.
func TestWriteRefusesInvalidLogs(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		change     func(*sarif.Run)
	}{
		{"unlisted rule", `rule "nope" is not listed`, func(r *sarif.Run) { r.Results[0].RuleID = "nope" }},
		{"rule twice", `rule "z-last" is listed twice`, func(r *sarif.Run) { r.Rules = append(r.Rules, sarif.Rule{ID: "z-last", Short: "x"}) }},
		{"rule without id", "a rule has no id", func(r *sarif.Run) { r.Rules[0].ID = "" }},
		{"rule without description", "no short description", func(r *sarif.Run) { r.Rules[0].Short = " " }},
		{"bad level", `level "fatal"`, func(r *sarif.Run) { r.Results[0].Level = "fatal" }},
		{"bad rule level", `level "high"`, func(r *sarif.Run) { r.Rules[0].Level = "high" }},
		{"empty message", "the message is empty", func(r *sarif.Run) { r.Results[0].Message = "" }},
		{"line without file", "a line without a file", func(r *sarif.Run) { r.Results[0].Locations[0].File = "" }},
		{"no location", "no location: code scanning needs one", func(r *sarif.Run) { r.Results[0].Locations = nil }},
		{"negative line", "a negative line", func(r *sarif.Run) { r.Results[0].Locations[0].Line = -1 }},
		{"column without line", "without a start line", func(r *sarif.Run) { r.Results[0].Locations[0].Line = 0 }},
		{"end before start", "ends (line 2) before it starts (line 9)", func(r *sarif.Run) { r.Results[0].Locations[0].EndLine = 2 }},
		{"tool without name", "the tool has no name", func(r *sarif.Run) { r.Tool.Name = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := sample()
			tc.change(l.Runs[0])
			_, err := l.Marshal()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// A result with no file is shown at line 1 of the run's anchor, or of
// catalog.json when the run names none: code scanning refuses a location
// without a file.
func TestAnchor(t *testing.T) {
	for anchor, want := range map[string]string{"server/catalog.json": `"uri": "server/catalog.json"`, "": `"uri": "catalog.json"`} {
		l := &sarif.Log{Runs: []*sarif.Run{{Tool: sarif.Tool{Name: "t"}, Anchor: anchor,
			Rules:   []sarif.Rule{{ID: "r", Short: "r"}},
			Results: []sarif.Result{{RuleID: "r", Message: "m", Locations: []sarif.Location{{Path: "tools.x"}}}}}}}
		b, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(want)) || !bytes.Contains(b, []byte(`"startLine": 1`)) || !bytes.Contains(b, []byte(`"fullyQualifiedName": "tools.x"`)) {
			t.Errorf("anchor %q: want %s at line 1 with the logical path:\n%s", anchor, want, b)
		}
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"examples/deployer/deploy.mcp": "examples/deployer/deploy.mcp",
		"./catalog.json":               "catalog.json",
		"a dir/x#1.mcp":                "a%20dir/x%231.mcp",
		"/abs/path/x.mcp":              "file:///abs/path/x.mcp",
		"c:weird.mcp":                  "./c:weird.mcp",
	} {
		if got := sarif.FileURI(in); got != want {
			t.Errorf("FileURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// The SARIF SDK's validator, with its own rules and code scanning's,
// finds no error in what the package writes.
func TestMultitoolAcceptsTheLog(t *testing.T) {
	v := sariftest.Need(t)
	b, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "sample.sarif")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errs, warnings, err := v.Multitool(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
	if len(errs) > 0 {
		t.Fatalf("Sarif.Multitool validate found errors:\n%s\n%s", strings.Join(errs, "\n"), b)
	}
}
