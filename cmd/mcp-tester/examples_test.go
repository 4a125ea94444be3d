package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/testbin"
	"github.com/spf13/cobra"
)

// The examples of the README and of every command's --help run as written
// from the repository root after make build: the binaries in bin/ (and on
// PATH, as the README says), TOKEN set (DEPLOY_STATE_KEY not), and a fake
// browser (internal/fixtures/fakebrowser) that signs in as alice where a
// login opens one. A line that starts a server in the background
// (bin/NAME ... -http|-addr 127.0.0.1:PORT ... &) starts it on a free port
// instead, and the examples reach it there. Each
// command's examples run in order in one shell that stops at the first
// failure, in a copy of the root (bin and examples linked), with its own
// home directory, so that the files they write stay there.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	root := exampleRoot(t)
	ios, _, _, _ := iostreams.Test()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			name := strings.TrimPrefix(c.CommandPath(), "mcp-tester")
			if name == "" {
				name = "mcp-tester"
			}
			script := exampleLines(c.Example)
			t.Run(strings.TrimSpace(name), func(t *testing.T) {
				t.Parallel()
				runExamples(t, root, script, nil)
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(cli.NewRootCmd(ios))
}

// The README's commands ($ lines) run in order in one shell, and print what
// the README shows after them (unless it shows "..."). make build is what
// the test did before.
func TestReadmeExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	root := exampleRoot(t)
	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, outputs := readmeCommands(string(readme))
	if len(cmds) == 0 {
		t.Fatal("the README has no $ commands")
	}
	runExamples(t, root, cmds, outputs)
}

// made are the packages make build puts into bin/.
var made = []string{
	"./cmd/mcp-tester",
	"./examples/conformance", "./examples/deployer", "./examples/github-connect", "./examples/oldway",
	"./examples/protected",
	"./internal/fixtures/askserver", "./internal/fixtures/fakebrowser",
	"./internal/fixtures/handbook", "./internal/fixtures/hostile", "./internal/fixtures/manytools",
	"./internal/fixtures/rulebreaker",
}

// exampleRoot returns a root with what make build builds in bin/ and the
// repository's examples.
func exampleRoot(t *testing.T) string {
	t.Helper()
	repo := moduleRoot(t)
	root := t.TempDir()
	if err := os.Symlink(testbin.Need(t, made...), filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "examples"), filepath.Join(root, "examples")); err != nil {
		t.Fatal(err)
	}
	return root
}

// exampleLines turns an Example text into shell lines: indentation taken
// off, lines that end in a backslash joined with the next.
func exampleLines(example string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(example, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasSuffix(l, `\`) {
			cur += strings.TrimSuffix(l, `\`)
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}

// readmeCommands returns the $ commands of the README's code blocks, in
// order, and what the README shows each prints ("" when nothing, or when
// it shows "...").
func readmeCommands(readme string) (cmds, outputs []string) {
	in := false
	var out *strings.Builder
	sc := bufio.NewScanner(strings.NewReader(readme))
	cont := false
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			in = !in
			out = nil
			continue
		}
		switch {
		case !in:
		case cont:
			cmds[len(cmds)-1] += strings.TrimSuffix(strings.TrimSpace(l), `\`)
			cont = strings.HasSuffix(l, `\`)
		case strings.HasPrefix(l, "$ make "):
			out = nil
		case strings.HasPrefix(l, "$ "):
			c := strings.TrimPrefix(l, "$ ")
			cont = strings.HasSuffix(c, `\`)
			cmds = append(cmds, strings.TrimSuffix(c, `\`))
			outputs = append(outputs, "")
			out = &strings.Builder{}
		case out != nil && l != "":
			out.WriteString(l + "\n")
			outputs[len(outputs)-1] = out.String()
		}
	}
	for i, o := range outputs {
		if strings.Contains(o, "...") || strings.Contains(o, "…") {
			outputs[i] = ""
		}
	}
	return cmds, outputs
}

// backgroundServer is an example line that starts a server, and the
// address it is told to listen on.
var (
	backgroundServer = regexp.MustCompile(`^bin/(\S+) (.*)&$`)
	listenAddr       = regexp.MustCompile(`-(http|addr) 127\.0\.0\.1:(\d+)`)
)

// runExamples runs lines in one bash in a copy of root and checks that each
// succeeds and, where want has text, prints it on stdout.
func runExamples(t *testing.T, root string, lines, want []string) {
	t.Helper()
	dir := t.TempDir()
	for _, l := range []string{"bin", "examples"} {
		if err := os.Symlink(filepath.Join(root, l), filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, ".home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// Without DEPLOY_STATE_KEY: the examples run as a reader who did not
	// set it runs them (the README exports it in its own commands).
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEPLOY_STATE_KEY=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"TOKEN=t0ken", "ACCESSIBLE=",
		"MCP_TESTER_BROWSER="+filepath.Join(dir, "bin", "fakebrowser"), "FAKEBROWSER_USER=alice",
		"PROTECTED_PASSWORD=letmein", "FAKEBROWSER_PASSWORD=letmein")
	var script strings.Builder
	script.WriteString("set -e -o pipefail\n")
	ports := map[string]string{}
	for i, l := range lines {
		if m := backgroundServer.FindStringSubmatch(l); m != nil {
			if a := listenAddr.FindStringSubmatch(m[2]); a != nil {
				ports["127.0.0.1:"+a[2]] = startExampleServer(t, dir, env, m[1], a[1], strings.Fields(listenAddr.ReplaceAllString(m[2], "")))
				continue
			}
		}
		for from, to := range ports {
			l = strings.ReplaceAll(l, from, to)
		}
		fmt.Fprintf(&script, "echo '@@%d'; echo '@@%d' >&2\n%s\n", i, i, l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = dir, env
	// A run that hangs ends with everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the examples fail (%v):\n%s\nstdout:\n%s\nstderr:\n%s", err, strings.Join(lines, "\n"), stdout.String(), stderr.String())
	}
	got := strings.Split(stdout.String(), "\n")
	for i, w := range want {
		if w == "" {
			continue
		}
		if seg := segment(got, i); seg != w {
			t.Errorf("$ %s\nprints\n%s\nthe README shows\n%s", lines[i], seg, w)
		}
	}
}

// segment returns what the i-th command wrote to stdout.
func segment(lines []string, i int) string {
	var b strings.Builder
	on := false
	for _, l := range lines {
		if strings.HasPrefix(l, "@@") {
			on = l == fmt.Sprintf("@@%d", i)
			continue
		}
		if on && l != "" {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// startExampleServer starts bin/name, listening (-http or -addr) on a free
// port, with the example's other arguments, and returns its address.
func startExampleServer(t *testing.T, dir string, env []string, name, listen string, args []string) string {
	t.Helper()
	addrFile := filepath.Join(dir, name+".addr")
	told := "-addr-file" // the -http servers write host:port
	if listen == "addr" {
		told = "-url-file" // examples/protected writes its MCP URL
	}
	args = append([]string{"-" + listen, "127.0.0.1:0", told, addrFile}, args...)
	cmd := exec.Command(filepath.Join(dir, "bin", name), args...)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			addr := strings.TrimSpace(string(b))
			if u, err := url.Parse(addr); err == nil && u.Host != "" {
				addr = u.Host
			}
			return addr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("bin/%s -http did not start", name)
	return ""
}
