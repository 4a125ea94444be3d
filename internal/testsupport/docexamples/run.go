package docexamples

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askback/askback/internal/platform/procgroup"
	"github.com/askback/askback/internal/server/listen"
)

// Options say where and how the commands of one document run.
type Options struct {
	// Dir is the working directory: a copy of the repository root.
	Dir string
	// Env is the commands' environment.
	Env []string
	// Timeout bounds the whole run (default 15 minutes: a hang guard, not a
	// figure; a document that compiles Go takes minutes on a busy machine).
	Timeout time.Duration
	// Done are commands the test has done before (make build): they are
	// not run again.
	Done []string
}

// Failure is a command that did not do what its document shows.
type Failure struct {
	Cmd Command
	Msg string
}

func (f Failure) Error() string {
	return fmt.Sprintf("%s: $ %s\n%s", f.Cmd.Where(), f.Cmd.Text, f.Msg)
}

// ScriptCommand is the command that runs a Script block: the script is
// written to a file under dir (named after the document and line) and run
// with mcp-tester test and the block's flags.
func ScriptCommand(b Block, dir string) Command {
	name := filepath.Join(dir, fmt.Sprintf("%s-%d.mcp", strings.NewReplacer("/", "-", ".", "-").Replace(b.File), b.Line))
	text := fmt.Sprintf("cat > %s <<'@@SCRIPT'\n%s@@SCRIPT\nmcp-tester test -s %s %s", shellQuote(name), b.Text, shellQuote(name), b.Flags)
	return Command{File: b.File, Line: b.Line, Text: text}
}

// Commands returns, in order, the commands the blocks run: those of
// Console blocks and one for each Script block (its file under dir).
func Commands(blocks []Block, dir string) []Command {
	var out []Command
	for _, b := range blocks {
		switch b.Kind {
		case Console:
			out = append(out, b.Cmds...)
		case Script:
			out = append(out, ScriptCommand(b, dir))
		}
	}
	return out
}

// background finds a command that starts a server in the background, and
// the ports it is told to listen on.
var (
	listenPort = regexp.MustCompile(`(?:127\.0\.0\.1|localhost):(\d{2,5})\b|--port[ =](\d{2,5})\b`)
)

// Run runs cmds in order in one bash in opts.Dir (stdout and stderr as one
// stream, stdin empty) and returns the commands that failed: those that
// exited otherwise than shown, printed otherwise than shown, or did not
// run to their end. A command ending in "&" starts a server in the
// background: the fixed ports it names (127.0.0.1:PORT, --port PORT) are
// replaced, in it and in every later command and output, by free ones, what
// it prints goes to a log shown on failure, and the next command runs once
// its ports accept connections. Everything started is ended with the run.
func Run(ctx context.Context, opts Options, cmds []Command) []Failure {
	if opts.Timeout <= 0 {
		opts.Timeout = 15 * time.Minute
	}
	logs := filepath.Join(opts.Dir, ".docexamples")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return []Failure{{Cmd: first(cmds), Msg: err.Error()}}
	}
	cmds = slices.Clone(cmds)
	for i := range cmds {
		cmds[i].Want = slices.Clone(cmds[i].Want)
	}
	script, bgLogs, fail := shellScript(cmds, opts.Done, logs)
	if fail != nil {
		return []Failure{*fail}
	}

	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	// A run that hangs ends with everything it started.
	procgroup.Isolate(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd.Process.Pid) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = procgroup.Kill(cmd.Process.Pid)
	}
	printed, status := split(out.String())
	return verdicts(ctx, cmds, printed, status, runErr, opts.Timeout, bgLogs)
}

// shellScript is the bash script that runs cmds one after the other, each
// marked in the output with its index and exit code; the commands in done
// are taken as run. The fixed ports of a background command are replaced
// in cmds by free ones, and what it prints goes to a log in the folder
// logs, one of bgLogs.
func shellScript(cmds []Command, done []string, logs string) (script string, bgLogs []string, fail *Failure) {
	var b strings.Builder
	b.WriteString("exec 2>&1 </dev/null\n")
	b.WriteString("trap 'kill $(jobs -p) 2>/dev/null' EXIT\n")
	b.WriteString("docexamples_wait() { for _ in $(seq 1200); do (: </dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; echo \"nothing listens on 127.0.0.1:$1 after 60s\"; return 1; }\n")
	given := map[string]bool{} // the ports handed out so far
	for i := range cmds {
		c := &cmds[i]
		fmt.Fprintf(&b, "printf '\\n@@docexample %d\\n'\n", i)
		if slices.Contains(done, strings.TrimSpace(c.Text)) {
			fmt.Fprintf(&b, "printf '\\n@@docexample-exit %d 0\\n'\n", i)
			continue
		}
		text := strings.TrimSpace(c.Text)
		if strings.HasSuffix(text, "&") && !strings.HasSuffix(text, "&&") {
			log := filepath.Join(logs, fmt.Sprintf("background-%d.log", i))
			if err := background(&b, cmds, i, given, log); err != nil {
				return "", nil, &Failure{Cmd: *c, Msg: err.Error()}
			}
			bgLogs = append(bgLogs, log)
			continue
		}
		fmt.Fprintf(&b, "%s\nprintf '\\n@@docexample-exit %d %%d\\n' $?\n", c.Text, i)
	}
	return b.String(), bgLogs, nil
}

// background writes to b the lines that start cmds[i] in the background,
// its output to log, and wait for its ports to accept connections; the
// fixed ports it names are replaced, in it and in every later command and
// output, by free ones (given: those handed out so far).
func background(b *strings.Builder, cmds []Command, i int, given map[string]bool, log string) error {
	ports, err := freePorts(cmds[i].Text, given)
	if err != nil {
		return err
	}
	for old, port := range ports {
		given[port] = true
		for j := i; j < len(cmds); j++ {
			cmds[j].Text = replacePort(cmds[j].Text, old, port)
			for k, w := range cmds[j].Want {
				cmds[j].Want[k] = replacePort(w, old, port)
			}
		}
	}
	text := strings.TrimSpace(cmds[i].Text)
	fmt.Fprintf(b, "%s >%s 2>&1 &\n", strings.TrimSuffix(text, "&"), shellQuote(log))
	b.WriteString("docexamples_status=0\n")
	for _, port := range ports {
		fmt.Fprintf(b, "docexamples_wait %s || docexamples_status=1\n", port)
	}
	fmt.Fprintf(b, "printf '\\n@@docexample-exit %d %%d\\n' $docexamples_status\n", i)
	return nil
}

// verdicts are the commands that failed: what each printed and its exit
// status, against what the document shows; the run of ctx ended with
// runErr, within timeout, the background commands' output in bgLogs.
func verdicts(ctx context.Context, cmds []Command, printed map[int][]string, status map[int]int, runErr error, timeout time.Duration, bgLogs []string) []Failure {
	var fails []Failure
	for i, c := range cmds {
		got := printed[i]
		st, ended := status[i]
		switch {
		case !ended && ctx.Err() != nil:
			if _, started := printed[i]; started {
				fails = append(fails, Failure{Cmd: c, Msg: fmt.Sprintf("did not end within %s; it printed:\n%s%s", timeout, indent(got), backgroundLogs(bgLogs))})
			} else {
				fails = append(fails, Failure{Cmd: c, Msg: "not reached: an earlier command did not end"})
			}
			return fails
		case !ended:
			fails = append(fails, Failure{Cmd: c, Msg: fmt.Sprintf("the shell ended before the command did (%v); it printed:\n%s", runErr, indent(got))})
			return fails
		case st != c.Exit:
			fails = append(fails, Failure{Cmd: c, Msg: fmt.Sprintf("exited %d, the document shows %d; it printed:\n%s%s", st, c.Exit, indent(got), backgroundLogs(bgLogs))})
		case c.Checked && !Match(c.Want, got):
			fails = append(fails, Failure{Cmd: c, Msg: fmt.Sprintf("prints\n%sthe document shows\n%s", indent(got), indent(c.Want))})
		}
	}
	return fails
}

func first(cmds []Command) Command {
	if len(cmds) == 0 {
		return Command{}
	}
	return cmds[0]
}

// split reads the run's output: what each command printed (blank lines and
// trailing spaces left out) and the exit code of each that ended.
func split(out string) (map[int][]string, map[int]int) {
	printed, status := map[int][]string{}, map[int]int{}
	cur := -1
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "@@docexample-exit "); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				i, _ := strconv.Atoi(f[0])
				st, _ := strconv.Atoi(f[1])
				status[i] = st
				cur = -1
				continue
			}
		}
		if rest, ok := strings.CutPrefix(l, "@@docexample "); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				cur = i
				printed[i] = printed[i][:0:0]
				continue
			}
		}
		if l = strings.TrimRight(l, " \t\r"); cur >= 0 && l != "" {
			printed[cur] = append(printed[cur], l)
		}
	}
	return printed, status
}

// Match reports whether got (blank lines left out) is what want shows: line
// by line, "…" in a line standing for any text, a line of only "..." or "…"
// for any number of lines.
func Match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if w := strings.TrimSpace(want[0]); w == "..." || w == "…" {
		for i := 0; i <= len(got); i++ {
			if Match(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && Match(want[1:], got[1:])
}

// matchLine matches one line, "…" standing for any text and a run of
// spaces for any run of spaces (the columns of a table move with what they
// hold).
func matchLine(want, got string) bool {
	want, got = squeeze(want), squeeze(got)
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return strings.HasSuffix(got, last)
}

// squeeze turns every run of spaces and tabs into one space.
func squeeze(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

// freePorts returns, for each fixed port the command names, a free port
// to use instead. Ports handed out before (given) are left as they are: an
// earlier background server's, which the command connects to.
func freePorts(text string, given map[string]bool) (map[string]string, error) {
	ports := map[string]string{}
	for _, m := range listenPort.FindAllStringSubmatch(text, -1) {
		old := m[1] + m[2]
		if _, ok := ports[old]; ok || given[old] {
			continue
		}
		port, err := listen.FreePort()
		if err != nil {
			return nil, fmt.Errorf("no free port for %s: %v", old, err)
		}
		ports[old] = strconv.Itoa(port)
	}
	return ports, nil
}

// replacePort puts port where text names the port old (of 127.0.0.1,
// localhost or [::1], or after --port).
func replacePort(text, old, port string) string {
	re := regexp.MustCompile(`(127\.0\.0\.1:|localhost:|\[::1\]:|--port[ =])` + regexp.QuoteMeta(old) + `\b`)
	return re.ReplaceAllString(text, "${1}"+port)
}

func backgroundLogs(logs []string) string {
	var b strings.Builder
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		fmt.Fprintf(&b, "a server started in the background (%s) printed:\n%s", filepath.Base(l), indent(strings.Split(strings.TrimRight(string(data), "\n"), "\n")))
	}
	return b.String()
}

// indent shows lines indented, at most the first and last 30 of them.
func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (nothing)\n"
	}
	var b strings.Builder
	for i, l := range lines {
		if n := len(lines); n > 60 && i >= 30 && i < n-30 {
			if i == 30 {
				fmt.Fprintf(&b, "    [… %d lines …]\n", n-60)
			}
			continue
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
