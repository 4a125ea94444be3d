package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands of docs/record.md's "Record" section run in order in one
// shell from the repository root, as the README's do, and print what the
// page shows after them (unless it shows "…").
func TestRecordDocExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	doc, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "record.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := markdownSection(string(doc), "## Record")
	if section == "" {
		t.Fatal(`docs/record.md has no "## Record" section`)
	}
	cmds, outputs := readmeCommands(section)
	if len(cmds) < 5 {
		t.Fatalf("the Record section has %d $ commands", len(cmds))
	}
	runExamples(t, exampleRoot(t), cmds, outputs)
}

// markdownSection returns the section of doc under heading, up to the
// next heading of the same level.
func markdownSection(doc, heading string) string {
	start := strings.Index(doc, "\n"+heading+"\n")
	if start < 0 {
		return ""
	}
	rest := doc[start+1+len(heading):]
	if end := strings.Index(rest, "\n"+heading[:strings.IndexByte(heading, ' ')+1]); end >= 0 {
		rest = rest[:end]
	}
	return rest
}
