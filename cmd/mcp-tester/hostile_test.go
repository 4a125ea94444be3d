package main

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/text/termsafe"
)

// hostileRun is one command line run against the hostile fixture.
type hostileRun struct {
	name string
	args []string
	// out is what stdout must be: "text", "json" (one document) or "jsonl"
	// (one JSON value a line).
	out string
	// stdin is what a person types; stderrTTY fakes a terminal on stderr.
	stdin     string
	stderrTTY bool
	// quiet says the run shows nothing of the server (no check that the
	// evil reached the output, escaped).
	quiet bool
}

// ownSequences are the escape sequences the tester writes itself, on a
// terminal only: the live task status line.
var ownSequences = regexp.MustCompile("\r\x1b\\[K")

// shownEscaped is how the evil shows once neutralised: in text, in JSON
// (in SARIF's messages with the bracket escaped too, as SARIF's plain text
// wants).
var shownEscaped = regexp.MustCompile(`\\x1b\[2J|\\u001b(\\\\)?\[2J`)

// A hostile server (internal/testsupport/fixtures/hostile) puts ESC, OSC 52, OSC 8, C1
// CSI, DEL, BEL, backspace, carriage returns, RLO, bidi isolates and zero
// width spaces into every field it can. Through every command and output
// format, not one raw control byte may reach stdout or stderr, and JSON
// output must stay one document a parser reads.
func TestHostileServerReachesNoTerminal(t *testing.T) {
	bin := buildServers(t)
	hostile := filepath.Join(bin, "hostile")
	dir := t.TempDir()
	script := filepath.Join(dir, "hostile.mcp")
	if err := os.WriteFile(script, []byte("elicit_response accept\nelicit_response accept\ncall_tool ask\nassert_contains \"something the server never says\"\ncall_tool content\nassert_elicited \"nothing\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := []string{"-c", hostile}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"catalogFormat": 1, "server": {"name": "before"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	diff := func(format string) []string {
		return append([]string{"catalog", "diff", old, "--fail-on", "none", "--format", format}, c...)
	}
	runs := []hostileRun{
		{name: "catalog save", args: append([]string{"catalog", "save"}, c...), out: "json"},
		{name: "catalog diff", args: diff("text"), out: "text"},
		{name: "catalog diff json", args: diff("json"), out: "json"},
		{name: "catalog diff markdown", args: diff("markdown"), out: "text"},
		{name: "catalog diff sarif", args: diff("sarif"), out: "json"},
		{name: "catalog diff github", args: diff("github"), out: "text"},
		{name: "test sarif", args: append([]string{"test", "-s", script, "--format", "sarif"}, c...), out: "json"},
		{name: "test github", args: append([]string{"test", "-s", script, "--format", "github"}, c...), out: "text"},
		{name: "audit sarif", args: append([]string{"audit", "--include", "*", "--timeout", "10s", "--format", "sarif", "-q"}, c...), out: "json"},
		{name: "inspect sarif", args: append([]string{"inspect", "--format", "sarif"}, c...), out: "json", quiet: true},
		{name: "tools list", args: append([]string{"tools", "list", "--all"}, c...), out: "text"},
		{name: "tools list json", args: append([]string{"tools", "list", "--all", "--format", "json"}, c...), out: "json"},
		{name: "prompts list", args: append([]string{"prompts", "list"}, c...), out: "text"},
		{name: "prompts list json", args: append([]string{"prompts", "list", "--json"}, c...), out: "json"},
		{name: "prompts get", args: append([]string{"prompts", "get", "prompt", "--elicit", "accept"}, c...), out: "text"},
		{name: "prompts get json", args: append([]string{"prompts", "get", "prompt", "--elicit", "accept", "--format", "json"}, c...), out: "json"},
		{name: "prompts get raw", args: append([]string{"prompts", "get", "prompt", "--elicit", "accept", "--raw"}, c...), out: "json"},
		{name: "resources list", args: append([]string{"resources", "list"}, c...), out: "text"},
		{name: "resources list json", args: append([]string{"resources", "list", "--format", "json"}, c...), out: "json"},
		{name: "resources templates", args: append([]string{"resources", "templates"}, c...), out: "text"},
		{name: "resources templates json", args: append([]string{"resources", "templates", "--format", "json"}, c...), out: "json"},
		{name: "resources read", args: append([]string{"resources", "read", "evil://note", "--elicit", "accept"}, c...), out: "text"},
		{name: "resources read json", args: append([]string{"resources", "read", "evil://note", "--elicit", "accept", "--json"}, c...), out: "json"},
		{name: "resources subscribe", args: append([]string{"resources", "subscribe", "evil://note", "--count", "2"}, c...), out: "text"},
		{name: "resources subscribe json", args: append([]string{"resources", "subscribe", "evil://note", "--count", "2", "--format", "json"}, c...), out: "jsonl"},
		{name: "complete", args: append([]string{"complete", "--prompt", "prompt", "topic", "x"}, c...), out: "text"},
		{name: "complete json", args: append([]string{"complete", "--prompt", "prompt", "topic", "x", "--format", "json"}, c...), out: "json"},
		{name: "logging", args: append([]string{"logging", "debug", "--count", "2", "--timeout", "10s"}, c...), out: "text"},
		{name: "logging json", args: append([]string{"logging", "debug", "--count", "2", "--timeout", "10s", "--format", "json"}, c...), out: "jsonl"},
		{name: "ping", args: append([]string{"ping"}, c...), out: "text", quiet: true},
		{name: "ping json", args: append([]string{"ping", "--format", "json"}, c...), out: "json"},
		{name: "call ask", args: append([]string{"call", "ask", "--elicit", `form=accept:{"color":"red"}`, "--elicit", "accept"}, c...), out: "text"},
		{name: "call ask json", args: append([]string{"call", "ask", "--elicit", `form=accept:{"color":"red"}`, "--elicit", "accept", "--json"}, c...), out: "json"},
		{name: "call ask trace", args: append([]string{"call", "ask", "--elicit", "accept", "-v"}, c...), out: "text"},
		{name: "call ask strict", args: append([]string{"call", "ask", "--strict"}, c...), out: "text", quiet: true},
		{name: "call ask unused", args: append([]string{"call", "ask", "--elicit", "accept", "--elicit", "accept", "--elicit", "cancel"}, c...), out: "text"},
		{name: "call link", args: append([]string{"call", "link", "--elicit", "accept", "--elicit", "decline"}, c...), out: "text"},
		{name: "call link json", args: append([]string{"call", "link", "--elicit", "accept", "--elicit", "decline", "--format", "json"}, c...), out: "json"},
		{name: "call content", args: append([]string{"call", "content"}, c...), out: "text"},
		{name: "call content json", args: append([]string{"call", "content", "--format", "json"}, c...), out: "json"},
		{name: "call fail", args: append([]string{"call", "fail"}, c...), out: "text"},
		{name: "call rpcerror", args: append([]string{"call", "rpcerror"}, c...), out: "text"},
		{name: "call rpcerror json", args: append([]string{"call", "rpcerror", "--format", "json"}, c...), out: "json"},
		{name: "call crash", args: append([]string{"call", "crash"}, c...), out: "text"},
		{name: "call legacy", args: append([]string{"call", "legacy", "--protocol", "2025-11-25", "--elicit", "accept"}, c...), out: "text"},
		{name: "call legacyurl", args: append([]string{"call", "legacyurl", "--protocol", "2025-11-25", "--elicit", "accept"}, c...), out: "text"},
		{name: "call task", args: append([]string{"call", "task", "--elicit", "accept"}, c...), out: "text"},
		{name: "call task on a terminal", args: append([]string{"call", "task", "--elicit", "accept"}, c...), out: "text", stderrTTY: true},
		{name: "call task json", args: append([]string{"call", "task", "--elicit", "accept", "--format", "json"}, c...), out: "json"},
		{name: "call task no-wait", args: append([]string{"call", "task", "--no-wait"}, c...), out: "text"},
		{name: "call task no-wait json", args: append([]string{"call", "task", "--no-wait", "--format", "json"}, c...), out: "json"},
		{name: "call interactive", args: append([]string{"call", "ask", "--interactive"}, c...), out: "text", stdin: "someone\n1\n1\n1\n\n1\n"},
		{name: "audit", args: append([]string{"audit", "--include", "*", "--timeout", "10s"}, c...), out: "text"},
		{name: "audit json", args: append([]string{"audit", "--include", "*", "--timeout", "10s", "--format", "json", "-q"}, c...), out: "json"},
		{name: "inspect", args: append([]string{"inspect", "--probe"}, c...), out: "text"},
		{name: "inspect json", args: append([]string{"inspect", "--probe", "--format", "json"}, c...), out: "json"},
		{name: "bench", args: append([]string{"bench", "ask", "--requests", "2", "--elicit", "accept", "--elicit", "accept"}, c...), out: "text", quiet: true},
		{name: "bench errors", args: append([]string{"bench", "rpcerror", "--requests", "2"}, c...), out: "text"},
		{name: "bench json", args: append([]string{"bench", "fail", "--requests", "2", "--format", "json"}, c...), out: "json"},
		{name: "test", args: append([]string{"test", "-s", script, "--questions"}, c...), out: "text"},
		{name: "test json", args: append([]string{"test", "-s", script, "--format", "json"}, c...), out: "json"},
		{name: "shell completion", args: append([]string{"__complete", "call"}, append(c, "")...), out: "text", quiet: true},
		{name: "stderr of a server that cannot start", args: []string{"ping", "-c", `printf 'boom\033]52;c;cm0gLXJmIH4K\007\033[2J\302\233\342\200\256\n' >&2; exit 1`}, out: "text", quiet: true},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr := runTester(t, r)
			check := func(stream, out string) {
				if r.stderrTTY && stream == "stderr" {
					out = ownSequences.ReplaceAllString(out, "")
				}
				if termsafe.Has(out) {
					t.Errorf("%s keeps a raw control character at %s:\n%q", stream, firstRaw(out), out)
				}
			}
			check("stdout", stdout)
			check("stderr", stderr)
			switch r.out {
			case "json", "jsonl":
				if err := checkJSON(stdout, r.out == "jsonl"); err != nil {
					t.Errorf("stdout is not %s: %v\n%s", r.out, err, stdout)
				}
			}
			if !r.quiet && !shownEscaped.MatchString(stdout+stderr) {
				t.Errorf("nothing the server sent was shown, so this run tested nothing:\nstdout: %s\nstderr: %s", stdout, stderr)
			}
		})
	}
}

// runTester runs mcp-tester in-process with r's command line, input and
// terminal, and returns what it wrote.
func runTester(t *testing.T, r hostileRun) (stdout, stderr string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(r.stdin)
	ios.SetTTY(false, false, r.stderrTTY)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cli.Main(ctx, ios, r.args)
	return out.String(), errOut.String()
}

// firstRaw shows where the first raw control character is.
func firstRaw(s string) string {
	for i, r := range s {
		if r != '\n' && r != '\t' && termsafe.Unsafe(r) || r == 0xfffd {
			start := max(0, i-20)
			return strings.TrimSpace(s[start:i]) + "⟦" + string(r) + "⟧"
		}
	}
	return "a byte that is not UTF-8"
}

// The JUnit reports of test and audit show what a hostile server sent as
// the text report does: every control, bidirectional and invisible
// character escaped (a CI page that shows the report reads none raw), and
// the file stays XML a parser reads.
func TestJUnitReportsOfAHostileServer(t *testing.T) {
	bin := buildServers(t)
	dir := t.TempDir()
	c := []string{"-c", filepath.Join(bin, "hostile")}
	script := filepath.Join(dir, "hostile.mcp")
	if err := os.WriteFile(script, []byte("elicit_response accept\nelicit_response accept\ncall_tool ask\nassert_contains \"something the server never says\"\ncall_tool content\ncall_tool fail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"test":  append([]string{"test", "-s", script}, c...),
		"audit": append([]string{"audit", "--include", "*", "--timeout", "10s", "-q"}, c...),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			report := filepath.Join(dir, name+".xml")
			runTester(t, hostileRun{args: append(args, "--junit", report)})
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			doc := string(data)
			if termsafe.Has(doc) || strings.ContainsRune(doc, 0xfffd) {
				t.Errorf("the report keeps a raw control character at %s", firstRaw(doc))
			}
			if !shownEscaped.MatchString(doc) || !strings.Contains(doc, `\u202e`) {
				t.Errorf("the report does not show what the server sent, escaped:\n%s", doc)
			}
			if err := xml.Unmarshal(data, new(struct{})); err != nil {
				t.Errorf("the report is not XML: %v", err)
			}
		})
	}
}
