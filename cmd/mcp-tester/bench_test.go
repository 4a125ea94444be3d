package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkDeployCall runs the deploy example's accept transcript through
// mcp-tester (in process, against the real deployer over stdio) and, in
// turn in the same run, a minimal go-sdk client making the same call and
// giving the same answer. It reports the ratio of their wall times,
// call/minimal, with its range over the pairs.
func BenchmarkDeployCall(b *testing.B) {
	bin := buildServers(b)
	b.Setenv("DEPLOY_STATE_KEY", "0123456789abcdef0123456789abcdef")
	args := []string{"call", "deploy", "-c", filepath.Join(bin, "deployer"), "--args", `{"service":"auth-service"}`,
		"--elicit", `accept:{"environment":"production","confirm":true}`}
	pairs(b, "call/minimal", func() { runCLI(b, args) },
		func() {
			floorCall(b, exec.Command(filepath.Join(bin, "deployer")), "deploy", map[string]any{"service": "auth-service"})
		})
}

// BenchmarkLingeringServer calls a server that does not exit when its input
// closes (as many Node.js servers do) and, in turn, the same server exiting
// at once: the tester's short grace bounds the wait. It reports
// lingering/prompt, the ratio of their wall times.
func BenchmarkLingeringServer(b *testing.B) {
	bin := buildServers(b)
	server := filepath.Join(bin, "askserver")
	pairs(b, "lingering/prompt",
		func() { runCLI(b, []string{"call", "echo", "-c", server + " -linger 10s"}) },
		func() { runCLI(b, []string{"call", "echo", "-c", server}) })
}

// pairs times subject and baseline in turn, once each per iteration, and
// reports the ratio of their wall times as name (median, name-min,
// name-max) and each one's median in ms, with the load of the run.
func pairs(b *testing.B, name string, subject, baseline func()) {
	done := benchratio.LoadWatch(b)
	var a, base []float64
	for b.Loop() {
		t0 := time.Now()
		subject()
		t1 := time.Now()
		baseline()
		a = append(a, float64(t1.Sub(t0)))
		base = append(base, float64(time.Since(t1)))
	}
	benchratio.Summarize(benchratio.Ratios(a, base)).Report(b, name)
	b.ReportMetric(benchratio.Summarize(a).Median/1e6, "subject-ms")
	b.ReportMetric(benchratio.Summarize(base).Median/1e6, "baseline-ms")
	done()
}

func runCLI(b *testing.B, args []string) {
	io, _, _, errOut := iostreams.Test()
	if code := cli.Main(context.Background(), io, args); code != 0 {
		b.Fatalf("exit %d: %s", code, errOut)
	}
}

func floorCall(b *testing.B, cmd *exec.Cmd, tool string, args map[string]any) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "floor"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond}, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		b.Fatalf("call: %v %v", err, res)
	}
	cs.Close()
}

// BenchmarkStart starts `mcp-tester --version` and, in turn, a Go program
// that prints one line, built here with the same flags (make's GOFLAGS):
// start/hello is the ratio of their CPU times (user + system, the kernel's
// accounting of each finished process), what one of the thousands of
// mcp-tester starts of make test costs above Go's own floor.
func BenchmarkStart(b *testing.B) {
	tester := testbin.Path(b, "./cmd/mcp-tester")
	hello := buildHello(b)
	done := benchratio.LoadWatch(b)
	var a, base []float64
	for b.Loop() {
		x, y, err := benchratio.Pairs(10,
			func() *exec.Cmd { return exec.Command(tester, "--version") },
			func() *exec.Cmd { return exec.Command(hello) })
		if err != nil {
			b.Fatal(err)
		}
		a, base = append(a, x...), append(base, y...)
	}
	benchratio.Summarize(benchratio.Ratios(a, base)).Report(b, "start/hello")
	b.ReportMetric(benchratio.Summarize(a).Median, "start-cpu-ms")
	b.ReportMetric(benchratio.Summarize(base).Median, "hello-cpu-ms")
	done()
}

// buildHello builds a Go program that prints one line, in a module of its
// own, with the go command's environment (make's GOFLAGS and CGO_ENABLED).
func buildHello(b *testing.B) string {
	dir := b.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module hello\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the hello world: %v\n%s", err, out)
	}
	return filepath.Join(dir, "hello")
}
