package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/benchratio"
	"github.com/askback/askback/internal/httpserve"
	"github.com/askback/askback/internal/testbin"
)

// profileFlows is how many two-round deploy flows BenchmarkDeployerProfile
// profiles per iteration.
const profileFlows = 2000

// BenchmarkDeployerProfile says where the deployer's CPU goes in a
// two-round deploy flow (input_required, then the retry with the answer
// and a sealed single-use state) under load: the deployer runs in this
// process as `deployer -http` serves it (memory stores, the default flags),
// and `yardstick flows`, the minimal go-sdk client, drives profileFlows
// flows from 8 workers as a process of its own, so that every CPU sample
// of this process is the server's. The samples are sorted into the parts
// of profileParts and each part reported as a percentage of the whole
// (gc-%, sdk-json-%, sdk-other-%, askback-%, net-%, rest-%), with the range over
// the iterations (-benchtime 3x: three profiles). Needs `go tool pprof`.
func BenchmarkDeployerProfile(b *testing.B) {
	yard := filepath.Join(testbin.Need(b, "./internal/fixtures/yardstick"), "yardstick")
	fs := flag.NewFlagSet("deployer", flag.ContinueOnError)
	df := registerDeployFlags(fs)
	if err := fs.Parse(nil); err != nil {
		b.Fatal(err)
	}
	st, err := openStores(context.Background(), df)
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	srv, err := newServer("bench-key-0123456789abcdef-0123456789", st, &rolloutOptions{Step: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if df.http != nil {
		if err := df.http.Apply(ho); err != nil {
			b.Fatal(err)
		}
	}
	h := httpHandler(srv, df)
	hs := httptest.NewUnstartedServer(h)
	hs.Config = httpserve.Server(h, ho)
	hs.Start()
	defer hs.Close()
	flows := func(n int) {
		out, err := exec.Command(yard, "flows", "-u", hs.URL+"/mcp", "-n", strconv.Itoa(n), "-workers", "8").CombinedOutput()
		if err != nil {
			b.Fatalf("yardstick flows: %v\n%s", err, out)
		}
	}
	done := benchratio.LoadWatch(b)
	flows(200) // warm up
	dir := b.TempDir()
	shares := map[string][]float64{}
	i := 0
	for b.Loop() {
		name := filepath.Join(dir, fmt.Sprintf("cpu-%d.prof", i))
		i++
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		flows(profileFlows)
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		parts, total, restTop, err := profileShares(name)
		if err != nil {
			b.Fatal(err)
		}
		var line []string
		for _, p := range profileParts {
			shares[p.metric] = append(shares[p.metric], parts[p.metric])
			line = append(line, fmt.Sprintf("%s %.1f %%", p.metric, parts[p.metric]))
		}
		b.Logf("profile %d (%s of samples): %s; the most of rest: %s", i, total, strings.Join(line, ", "), restTop)
	}
	for _, p := range profileParts {
		r := benchratio.Summarize(shares[p.metric])
		b.ReportMetric(r.Median, p.metric+"-%")
		b.ReportMetric(r.Min, p.metric+"-%-min")
		b.ReportMetric(r.Max, p.metric+"-%-max")
		b.Logf("%-10s %4.1f %% (%.1f–%.1f, %d profiles): %s", p.metric, r.Median, r.Min, r.Max, r.N, p.what)
	}
	done()
}

// profileParts are the parts a CPU sample of the deployer is counted in,
// in the order they are tried: a sample counts in the first part whose
// test its stack (leaf first) passes.
var profileParts = []struct {
	metric, what string
	in           func(stack []string) bool
}{
	{"gc", "the garbage collector: background marking, sweeping, returning memory, and the marking a goroutine that allocates is made to help with", func(s []string) bool {
		return anyFrame(s, "runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcAssistAlloc", "runtime.gcStart", "runtime.gcMarkDone", "runtime.gcMarkTermination")
	}},
	{"sdk-json", "the go-sdk's internal/json.Unmarshal (a segmentio/encoding Decoder over a bytes.Reader for each message and field it decodes: a 32 KiB buffer, the value scanned twice), with the allocations it makes", func(s []string) bool {
		return anyFrame(s, "github.com/modelcontextprotocol/go-sdk/internal/json.Unmarshal")
	}},
	{"sdk-other", "the rest of the go-sdk: JSON-RPC, the Streamable HTTP handler, schema validation of the arguments, encoding the results (with the standard library it calls)", func(s []string) bool {
		return owner(s) == "go-sdk"
	}},
	{"askback", "the project's own code: the form, the ask and reqstate packages (the sealed single-use state: claims, AES-GCM, the argument digest, the replay store), the endpoint and httpserve wrappers, the handler (with the standard library they call)", func(s []string) bool {
		return owner(s) == "askback"
	}},
	{"net", "the standard library's HTTP server and connections outside the handlers (reading requests, headers, writing, the system calls of the sockets)", func(s []string) bool {
		for _, f := range s {
			if strings.HasPrefix(f, "net/http.") || strings.HasPrefix(f, "net.") || strings.HasPrefix(f, "internal/poll.") || strings.HasPrefix(f, "bufio.") {
				return true
			}
		}
		return false
	}},
	{"rest", "everything else: the scheduler (goroutines parked and woken), timers, the profiler's own", func([]string) bool { return true }},
}

// anyFrame reports whether a frame of stack is one of funcs.
func anyFrame(stack []string, funcs ...string) bool {
	for _, f := range stack {
		for _, g := range funcs {
			if f == g {
				return true
			}
		}
	}
	return false
}

// owner is the code a sample's time is spent for: the first frame from the
// leaf that belongs to the go-sdk or to this module (a call into the
// standard library counts for its caller), or "" when none does.
func owner(stack []string) string {
	for _, f := range stack {
		switch {
		case strings.HasPrefix(f, "github.com/modelcontextprotocol/go-sdk/"):
			return "go-sdk"
		case strings.HasPrefix(f, "github.com/askback/askback/") && !strings.HasPrefix(f, "github.com/askback/askback/examples/deployer.BenchmarkDeployerProfile"):
			return "askback"
		}
	}
	return ""
}

// profileShares reads the CPU profile in name with `go tool pprof -traces`
// and returns the percentage of its samples in each of profileParts, and
// the total sampled time, and the functions whose own samples weigh most
// in the part "rest" (with their share of the whole).
func profileShares(name string) (map[string]float64, time.Duration, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, 0, "", err
	}
	out, err := exec.Command("go", "tool", "pprof", "-traces", exe, name).Output()
	if err != nil {
		return nil, 0, "", fmt.Errorf("go tool pprof -traces: %w", err)
	}
	parts := map[string]float64{}
	restLeaves := map[string]float64{}
	var total time.Duration
	var stack []string
	var weight time.Duration
	flush := func() {
		if len(stack) == 0 {
			return
		}
		for _, p := range profileParts {
			if p.in(stack) {
				parts[p.metric] += float64(weight)
				if p.metric == "rest" {
					restLeaves[stack[0]] += float64(weight)
				}
				break
			}
		}
		total += weight
		stack, weight = nil, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----") {
			flush()
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(stack) == 0 && len(fields) >= 2 {
			// The first line of a trace: its time, then its leaf.
			if d, err := time.ParseDuration(fields[0]); err == nil {
				weight = d
				stack = append(stack, fields[1])
				continue
			}
		}
		if len(stack) > 0 {
			stack = append(stack, fields[0])
		}
	}
	flush()
	if total == 0 {
		return nil, 0, "", fmt.Errorf("the profile %s has no samples", name)
	}
	for k, v := range parts {
		parts[k] = 100 * v / float64(total)
	}
	leaves := slices.Collect(maps.Keys(restLeaves))
	slices.SortFunc(leaves, func(a, b string) int { return cmp.Compare(restLeaves[b], restLeaves[a]) })
	var top []string
	for _, l := range leaves[:min(5, len(leaves))] {
		top = append(top, fmt.Sprintf("%s %.1f %%", l, 100*restLeaves[l]/float64(total)))
	}
	return parts, total, strings.Join(top, ", "), nil
}
