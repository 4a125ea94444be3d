package manpage_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/release/manpage"
	"github.com/spf13/cobra"
)

var header = manpage.Header{
	Date:         time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
	Source:       "mcp-tester v0.9.0",
	Manual:       "mcp-tester manual",
	RootSections: []manpage.Section{{Title: "Exit status", Body: "0 ok, 1 failure,\n2 usage, 3 unreachable."}},
}

// render formats a page as man shows it, as plain text, and fails on any
// warning of groff (-ww: every warning).
func render(t *testing.T, page []byte) string {
	t.Helper()
	if _, err := exec.LookPath("groff"); err != nil {
		why := "groff is needed to read the pages as man does: scripts/ensure-groff.sh (make setup) installs it"
		if os.Getenv("CI") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	check := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	check.Stdin = bytes.NewReader(page)
	if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("groff warns about the page: %v\n%s\npage:\n%s", err, out, page)
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-P-cbou")
	cmd.Stdin = bytes.NewReader(page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("groff: %v", err)
	}
	return string(out)
}

func testRoot() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	return cli.NewRootCmd(ios)
}

func pages(t *testing.T, root *cobra.Command) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	if err := manpage.Tree(root, header, func(file string, page []byte) error {
		got[file] = page
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// Every command of mcp-tester a person can run has a page that man reads
// without a warning, with its options, the global ones, and its examples.
func TestEveryCommandHasAPage(t *testing.T) {
	root := testRoot()
	got := pages(t, root)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		if _, ok := got[manpage.Name(c)+".1"]; !ok {
			t.Errorf("no page for %q", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if _, ok := got["mcp-tester-help.1"]; ok {
		t.Error("cobra's help command got a page")
	}

	call := render(t, got["mcp-tester-call.1"])
	for _, want := range []string{
		"mcp-tester-call - Call a tool",
		"--elicit",
		"-c, --command string",
		"GLOBAL OPTIONS",
		"--lang string",
		`mcp-tester call deploy -c bin/deployer --args '{"service":"auth-service"}' \`,
		"mcp-tester v0.9.0",
		"2026-12-01",
		"mcp-tester(1)",
	} {
		if !strings.Contains(call, want) {
			t.Errorf("the page of call lacks %q:\n%s", want, call)
		}
	}
	top := render(t, got["mcp-tester.1"])
	for _, want := range []string{"COMMANDS", "mcp-tester-call(1)", "EXIT STATUS", "3 unreachable", "mcp-tester-version(1)"} {
		if !strings.Contains(top, want) {
			t.Errorf("the root page lacks %q:\n%s", want, top)
		}
	}
	if strings.Contains(call, "EXIT STATUS") {
		t.Error("the root's own sections appear on a command's page")
	}
	for name, page := range got {
		render(t, page)
		if !regexp.MustCompile(`^[a-z-]+\.1$`).MatchString(name) {
			t.Errorf("page name %q", name)
		}
	}
}

// Help text is text: a line that starts with a roff request, an escape, a
// quote in the title, non-ASCII and control characters come out as
// written (or, for controls, not at all), never as roff commands.
func TestTextIsNeverReadAsRoff(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("SECRET-CONTENT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := &cobra.Command{Use: "tool", Short: `a "quoted" tool`, Run: func(*cobra.Command, []string) {}}
	sub := &cobra.Command{
		Use:     "sub",
		Short:   `one \fBbold\fR claim`,
		Long:    ".so " + secret + "\n'br\nback\\slash and \\\" comment\n\nThe deploy – where to? → production\x1b[31m red\u0085",
		Example: "  .TH FAKE\n  tool sub --flag\n\n  'sp 100",
		Run:     func(*cobra.Command, []string) {},
	}
	sub.Flags().String("flag", "a.b", "a value\n.bp")
	root.AddCommand(sub)
	got := pages(t, root)
	// Filled text is justified: compare words.
	text := strings.Join(strings.Fields(render(t, got["tool-sub.1"])), " ")
	for _, want := range []string{
		".so " + secret,
		"'br",
		`back\slash and \" comment`,
		`one \fBbold\fR claim`,
		"The deploy – where to? → production[31m red",
		".TH FAKE tool sub --flag 'sp 100",
		"--flag string",
		`(default "a.b")`,
		".bp",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q as written:\n%s", want, text)
		}
	}
	if strings.Contains(text, "SECRET-CONTENT") {
		t.Errorf("a line of help text was read as a request (.so included a file):\n%s", text)
	}
	if strings.ContainsAny(string(got["tool-sub.1"]), "\x1b\u0085") {
		t.Error("a control character reached the page")
	}
	top := render(t, got["tool.1"])
	if !strings.Contains(top, `tool - a "quoted" tool`) {
		t.Errorf("the root page:\n%s", top)
	}
}

// The same tree and header give the same bytes: the pages of a release
// are reproducible.
func TestPagesAreReproducible(t *testing.T) {
	a := pages(t, testRoot())
	b := pages(t, testRoot())
	if len(a) != len(b) {
		t.Fatalf("%d pages, then %d", len(a), len(b))
	}
	for name, page := range a {
		if !bytes.Equal(page, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
