package benchratio

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// Part is a part of a CPU profile that [Shares] counts samples in.
type Part struct {
	Name string // the metric's name, e.g. "gc"
	What string // what the part is, for a reader
	// In reports whether a sample whose stack is given (function names,
	// leaf first) counts in this part.
	In func(stack []string) bool
}

// Shares reads the CPU profile in file, written by the binary exe (the
// test binary: os.Executable), with `go tool pprof -traces`, and returns
// the percentage of its sampled time that falls in each of parts (a sample
// counts in the first part whose In holds; in none when none does), the
// total sampled time, and the functions whose own samples weigh most among
// those of the last part, with their share of the whole.
func Shares(exe, file string, parts []Part) (map[string]float64, time.Duration, string, error) {
	out, err := exec.Command("go", "tool", "pprof", "-traces", exe, file).Output()
	if err != nil {
		return nil, 0, "", fmt.Errorf("go tool pprof -traces %s: %w", file, err)
	}
	shares, total, top := sharesOf(out, parts)
	if total == 0 {
		return nil, 0, "", fmt.Errorf("the profile %s has no samples", file)
	}
	return shares, total, top, nil
}

// sharesOf is Shares of the output of `go tool pprof -traces`.
func sharesOf(out []byte, parts []Part) (map[string]float64, time.Duration, string) {
	t := tally{parts: parts, shares: map[string]float64{}, lastLeaves: map[string]float64{}}
	var stack []string
	var weight time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----") {
			t.add(stack, weight)
			stack, weight = nil, 0
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
	t.add(stack, weight)
	if t.total == 0 {
		return t.shares, 0, ""
	}
	for k, v := range t.shares {
		t.shares[k] = 100 * v / float64(t.total)
	}
	return t.shares, t.total, t.topLeaves(5)
}

// tally sums the time of the traces of a profile by the part they are in.
type tally struct {
	parts      []Part
	shares     map[string]float64 // the time of each part
	lastLeaves map[string]float64 // the time of each leaf of the last part
	total      time.Duration
}

// add counts a trace, stack (its leaf first), of weight: in the first part
// it is in, if any.
func (t *tally) add(stack []string, weight time.Duration) {
	if len(stack) == 0 {
		return
	}
	for i, p := range t.parts {
		if p.In(stack) {
			t.shares[p.Name] += float64(weight)
			if i == len(t.parts)-1 {
				t.lastLeaves[stack[0]] += float64(weight)
			}
			break
		}
	}
	t.total += weight
}

// topLeaves says which n leaves of the last part took the most time, each
// with its share of the total.
func (t *tally) topLeaves(n int) string {
	leaves := slices.Collect(maps.Keys(t.lastLeaves))
	slices.SortFunc(leaves, func(a, b string) int { return cmp.Compare(t.lastLeaves[b], t.lastLeaves[a]) })
	var top []string
	for _, l := range leaves[:min(n, len(leaves))] {
		top = append(top, fmt.Sprintf("%s %.1f %%", l, 100*t.lastLeaves[l]/float64(t.total)))
	}
	return strings.Join(top, ", ")
}

// AnyFrame returns a Part test: a frame of the stack is one of funcs.
func AnyFrame(funcs ...string) func([]string) bool {
	return func(stack []string) bool {
		for _, f := range stack {
			if slices.Contains(funcs, f) {
				return true
			}
		}
		return false
	}
}

// AnyPrefix returns a Part test: a frame of the stack starts with one of
// prefixes.
func AnyPrefix(prefixes ...string) func([]string) bool {
	return func(stack []string) bool {
		for _, f := range stack {
			for _, p := range prefixes {
				if strings.HasPrefix(f, p) {
					return true
				}
			}
		}
		return false
	}
}

// Owner returns a Part test: the first frame from the leaf that starts with
// one of owners starts with one of mine (a call into the standard library
// counts for its caller).
func Owner(owners []string, mine ...string) func([]string) bool {
	return func(stack []string) bool {
		for _, f := range stack {
			for _, o := range owners {
				if strings.HasPrefix(f, o) {
					for _, m := range mine {
						if strings.HasPrefix(f, m) {
							return true
						}
					}
					return false
				}
			}
		}
		return false
	}
}

// GC is the part of a Go program's profile that is the garbage collector:
// background marking, sweeping, returning memory to the system, and the
// marking a goroutine that allocates is made to help with.
var GC = Part{Name: "gc", What: "the garbage collector: background marking, sweeping, returning memory to the system, and the marking a goroutine that allocates is made to help with",
	In: AnyFrame("runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcAssistAlloc", "runtime.gcStart", "runtime.gcMarkDone", "runtime.gcMarkTermination")}

// SDKJSON is the part that is the go-sdk's internal/json.Unmarshal.
var SDKJSON = Part{Name: "sdk-json", What: "the go-sdk's internal/json.Unmarshal (a segmentio/encoding Decoder over a bytes.Reader for each message and field it decodes: a 32 KiB buffer, the value scanned twice), with the allocations it makes",
	In: AnyFrame("github.com/modelcontextprotocol/go-sdk/internal/json.Unmarshal")}

// ReportProfiles runs f once per iteration of b with this process's CPU
// profiled, sorts each profile's samples into parts (see [Shares]), and
// reports each part's share as NAME-% (the median over the iterations),
// NAME-%-min and NAME-%-max; it logs each profile's shares and the
// heaviest functions of the last part, then what each part is.
func ReportProfiles(b *testing.B, parts []Part, f func() error) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	all := map[string][]float64{}
	n := 0
	for b.Loop() {
		n++
		name := filepath.Join(dir, fmt.Sprintf("cpu-%d.prof", n))
		file, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(file); err != nil {
			b.Fatal(err)
		}
		runErr := f()
		pprof.StopCPUProfile()
		if err := file.Close(); err != nil {
			b.Fatal(err)
		}
		if runErr != nil {
			b.Fatal(runErr)
		}
		shares, total, top, err := Shares(exe, name, parts)
		if err != nil {
			b.Fatal(err)
		}
		var line []string
		for _, p := range parts {
			all[p.Name] = append(all[p.Name], shares[p.Name])
			line = append(line, fmt.Sprintf("%s %.1f %%", p.Name, shares[p.Name]))
		}
		b.Logf("profile %d (%s sampled): %s; the heaviest of %s: %s", n, total, strings.Join(line, ", "), parts[len(parts)-1].Name, top)
	}
	for _, p := range parts {
		r := Summarize(all[p.Name])
		b.ReportMetric(r.Median, p.Name+"-%")
		b.ReportMetric(r.Min, p.Name+"-%-min")
		b.ReportMetric(r.Max, p.Name+"-%-max")
		b.Logf("%-12s %4.1f %% (%.1f–%.1f, %d profiles): %s", p.Name, r.Median, r.Min, r.Max, r.N, p.What)
	}
}
