package docexamples

import (
	"context"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseConsole(t *testing.T) {
	doc := "# Title\n\n```console\n$ echo one\none\n\n$ printf 'a\\n' \\\n    'b\\n'\na\nb\n$ false\n(exit 1)\n$ cat <<'EOF'\n$ not a command\nEOF\n```\n"
	blocks, errs := Parse("doc.md", doc)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(blocks) != 1 || blocks[0].Kind != Console || blocks[0].Line != 3 {
		t.Fatalf("blocks: %+v", blocks)
	}
	cmds := blocks[0].Cmds
	want := []Command{
		{File: "doc.md", Line: 4, Text: "echo one", Want: []string{"one"}, Checked: true},
		{File: "doc.md", Line: 7, Text: "printf 'a\\n' \\\n    'b\\n'", Want: []string{"a", "b"}, Checked: true},
		{File: "doc.md", Line: 11, Text: "false", Exit: 1},
		{File: "doc.md", Line: 13, Text: "cat <<'EOF'\n$ not a command\nEOF"},
	}
	if len(cmds) != len(want) {
		t.Fatalf("commands: %+v", cmds)
	}
	for i := range want {
		if cmds[i].Text != want[i].Text || cmds[i].Line != want[i].Line || cmds[i].Exit != want[i].Exit || !slices.Equal(cmds[i].Want, want[i].Want) {
			t.Errorf("command %d:\ngot  %+v\nwant %+v", i, cmds[i], want[i])
		}
	}
}

func TestParseMarks(t *testing.T) {
	doc := "```text\noutput\n```\n" +
		"```go file=examples/minimal/main.go\npackage main\n```\n" +
		"```mcp -c bin/deployer\nping\n```\n" +
		"```console not run: a person answers the form\n$ mcp-tester call deploy -c bin/deployer\n```\n" +
		"```sh not run: the machine of a reader\nrm -rf /\n```\n" +
		"- ```` ```text ````: inline code, no fence\n" +
		"- in a list:\n\n  ```console\n  $ echo indented\n  indented\n  ```\n"
	blocks, errs := Parse("doc.md", doc)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	kinds := []Kind{Shown, Shown, Script, NotRun, NotRun, Console}
	for i, b := range blocks {
		if b.Kind != kinds[i] {
			t.Errorf("block %d (%s): kind %d, want %d", i, b.Lang, b.Kind, kinds[i])
		}
	}
	if blocks[1].Path != "examples/minimal/main.go" || blocks[1].Text != "package main\n" {
		t.Errorf("file block: %+v", blocks[1])
	}
	if blocks[2].Flags != "-c bin/deployer" {
		t.Errorf("script flags: %q", blocks[2].Flags)
	}
	if blocks[3].Reason != "a person answers the form" || len(blocks[3].Cmds) != 0 {
		t.Errorf("not run: %+v", blocks[3])
	}
	if c := blocks[5].Cmds; len(c) != 1 || c[0].Text != "echo indented" || !slices.Equal(c[0].Want, []string{"indented"}) {
		t.Errorf("indented block: %+v", blocks[5])
	}
}

// A command example the test cannot see as run or as output-only is an
// error with its file and line.
func TestParseRefusesUnmarked(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"intro\n\n```\nmcp-tester ping -c bin/deployer\n```\n", "doc.md:3: the code block does not say what it is"},
		{"```sh\nmcp-tester ping -c bin/deployer\n```\n", "doc.md:1: a sh block: write it as ```console"},
		{"```text\nhello\n$ mcp-tester ping\n```\n", "doc.md:3: a command in a ```text block"},
		{"```mcp\nping\n```\n", "doc.md:1: a script that does not say what it runs against"},
		{"```console\nmcp-tester ping\n```\n", "doc.md:2: a console block starts with a command"},
		{"```console not run:\n$ x\n```\n", "doc.md:1: \"not run:\" needs a reason"},
		{"```go file=/etc/passwd\nx\n```\n", "doc.md:1: file=/etc/passwd: give a path inside the repository"},
		{"```console\n$ echo \\\n```\n", "doc.md:2: the command's last line continues"},
		{"```console\n$ echo\n", "doc.md:1: the code block is not closed"},
		{"```json pretty\n{}\n```\n", `doc.md:1: unknown marks "pretty"`},
	}
	for _, c := range cases {
		_, errs := Parse("doc.md", c.doc)
		if len(errs) == 0 || !strings.HasPrefix(errs[0].Error(), c.want) {
			t.Errorf("%q:\ngot  %v\nwant %s…", c.doc, errs, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a", "a\nb", false},
		{"a…c", "abbbc", true},
		{"a…c", "abbb", false},
		{"…x…", "axb", true},
		{"...\nlast", "1\n2\nlast", true},
		{"...\nlast", "last", true},
		{"first\n…\nlast", "first\nlast", true},
		{"first\n...", "first\nmore\nmore", true},
		{"", "", true},
		{"A   B  C", "A B      C", true},
		{"AB", "A B", false},
		{"", "x", false},
	}
	lines := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
	for _, c := range cases {
		if got := Match(lines(c.want), lines(c.got)); got != c.ok {
			t.Errorf("Match(%q, %q) = %v", c.want, c.got, got)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	doc := "```console\n$ export GREETING=hi\n$ echo $GREETING\nhi\n$ echo wrong\nright\n$ (exit 3)\n(exit 3)\n$ exit 0\n$ echo unreached\n```\n" +
		"```mcp -c bin/deployer\nping\n```\n"
	blocks, errs := Parse("doc.md", doc)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	cmds := Commands(blocks, dir)
	if len(cmds) != 7 || !strings.Contains(cmds[6].Text, "mcp-tester test -s ") {
		t.Fatalf("commands: %+v", cmds)
	}
	cmds = cmds[:6]
	fails := Run(context.Background(), Options{Dir: dir, Env: os.Environ()}, cmds)
	var got []string
	for _, f := range fails {
		got = append(got, f.Error())
	}
	if len(fails) != 2 || !strings.HasPrefix(got[0], "doc.md:5: $ echo wrong\nprints\n    wrong\nthe document shows\n    right") ||
		!strings.HasPrefix(got[1], "doc.md:9: $ exit 0\nthe shell ended before the command did") {
		t.Errorf("failures:\n%s", strings.Join(got, "\n"))
	}
}

// A server started in the background gets a free port, the later commands
// reach it there, and it ends with the run.
func TestRunBackground(t *testing.T) {
	dir := t.TempDir()
	listen := `python3 -c 'import socket,sys,time; h,p=sys.argv[1].split(":"); s=socket.socket(); s.bind((h,int(p))); s.listen(); time.sleep(120)'`
	cmds := []Command{
		{File: "d", Line: 1, Text: listen + " 127.0.0.1:8123 &"},
		{File: "d", Line: 2, Text: "echo 127.0.0.1:8123", Want: []string{"127.0.0.1:8123"}, Checked: true},
		{File: "d", Line: 3, Text: "echo 127.0.0.1:8123 | cut -d: -f2", Want: []string{"8123"}, Checked: true},
	}
	fails := Run(context.Background(), Options{Dir: dir, Env: os.Environ()}, cmds)
	if len(fails) != 1 || fails[0].Cmd.Line != 3 || strings.Contains(fails[0].Msg, "prints\n    8123") {
		t.Fatalf("failures: %v", fails)
	}
	port := strings.Fields(strings.TrimPrefix(fails[0].Msg, "prints\n"))[0]
	// The kill is delivered asynchronously: give it a moment (up to a
	// minute, for a busy machine).
	for range 1200 {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the background server still listens on %s after the run", port)
}

// Whatever a document holds, Parse returns: every line is read once, and
// a command's line is one of the document's.
func FuzzParse(f *testing.F) {
	f.Add("```console\n$ echo a \\\n  b\na b\n(exit 0)\n```\n")
	f.Add("  ```console\n  $ cat <<'EOF'\n  x\n  EOF\n  ```\n```mcp -c bin/x\nping\n```\n")
	f.Add("~~~text not run:\n$ x\n~~~\n```` ```go ````\n```\n")
	f.Fuzz(func(t *testing.T, doc string) {
		blocks, _ := Parse("f.md", doc)
		lines := strings.Count(doc, "\n") + 1
		for _, b := range blocks {
			for _, c := range b.Cmds {
				if c.Line < 1 || c.Line > lines {
					t.Fatalf("command at line %d of %d", c.Line, lines)
				}
			}
		}
	})
}
