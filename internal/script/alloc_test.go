package script

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixedConn answers every call with the same outcome, made once: what a
// run on it allocates is the runner's own.
type fixedConn struct {
	tools []*mcp.Tool
	out   *Outcome
}

func newFixedConn(text string) *fixedConn {
	return &fixedConn{
		tools: []*mcp.Tool{{Name: "echo", InputSchema: json.RawMessage(`{"type": "object", "properties": {"text": {"type": "string"}}}`)}},
		out:   &Outcome{Result: textResult(text), Raw: json.RawMessage(`{"content": [{"type": "text", "text": "` + text + `"}]}`)},
	}
}

func (c *fixedConn) CallTool(context.Context, string, map[string]any, []answer.Spec) (*Outcome, error) {
	return c.out, nil
}
func (c *fixedConn) GetPrompt(context.Context, string, map[string]string, []answer.Spec) (*Outcome, error) {
	return c.out, nil
}
func (c *fixedConn) ReadResource(context.Context, string, []answer.Spec) (*Outcome, error) {
	return c.out, nil
}
func (c *fixedConn) ListTools(context.Context) ([]*mcp.Tool, error) { return c.tools, nil }
func (c *fixedConn) Ping(context.Context) error                     { return nil }
func (c *fixedConn) Close() error                                   { return nil }

// opaque hides which Conn c is from the compiler, which would otherwise
// call it directly and keep the loop's arguments on the stack, as no loop
// calling a real session can.
//
//go:noinline
func opaque(c *fixedConn) Conn { return c }

// echoPairs is a script of pairs call_tool echo + assert_contains.
func echoPairs(tb testing.TB, pairs int) *Script {
	var b strings.Builder
	for range pairs {
		b.WriteString("call_tool echo text:\"hello\"\nassert_contains \"echo: hello\"\n")
	}
	return mustParse(tb, "allocs.mcp", b.String())
}

// runEchoPairs runs s on conn and fails unless every step passed.
func runEchoPairs(tb testing.TB, conn Conn, s *Script) {
	opts := RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }, Progress: io.Discard}
	if p, f := Run(context.Background(), s, opts).Counts(); f != 0 || p != s.NumSteps() {
		tb.Fatalf("%d passed, %d failed of %d steps", p, f, s.NumSteps())
	}
}

// mallocs is the number of heap allocations f makes (the process's, with
// f the only thing running in it).
func mallocs(f func()) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m0 := ms.Mallocs
	f()
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - m0
}

// BenchmarkRunnerAllocations: what the runner allocates for a step of
// call_tool + assert_contains on a Conn that allocates nothing, beyond what
// a loop making the same calls allocates (each call's time limit and its
// arguments): runner-allocs/step, the difference between scripts of 1,200
// and 200 pairs, less the loop's, per step (about 0; at most 1 is the aim:
// each is garbage the collector of a long run pays for). Also
// allocs/step-pair and loop-allocs/call. make bench (section allocs) runs
// it; BENCHMARKS.md gives the figures.
func BenchmarkRunnerAllocations(b *testing.B) {
	conn := newFixedConn("echo: hello")
	ctx := context.Background()
	const short, long = 200, 1200
	shortScript, longScript := echoPairs(b, short), echoPairs(b, long)
	hello := strings.Repeat("hello", 1) // a value made at run time, as a script's is
	c := opaque(conn)
	var runs, loops uint64
	for b.Loop() {
		runs += mallocs(func() { runEchoPairs(b, conn, longScript) }) - mallocs(func() { runEchoPairs(b, conn, shortScript) })
		loops += mallocs(func() {
			for range long - short {
				cctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
				out, err := c.CallTool(cctx, "echo", map[string]any{"text": hello}, nil)
				cancel()
				if err != nil || !strings.Contains(out.Result.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text, "echo: "+hello) {
					b.Fatal("the loop's call failed")
				}
			}
		})
	}
	n := float64(b.N * (long - short))
	perPair, loop := float64(runs)/n, float64(loops)/n
	b.ReportMetric(perPair, "allocs/step-pair")
	b.ReportMetric(loop, "loop-allocs/call")
	b.ReportMetric((perPair-loop)/2, "runner-allocs/step")
}

// A long script runs whole on a Conn that answers every call the same:
// every step passes, at 200 pairs and at 1,200. What a step costs the
// runner in allocations is a figure of BenchmarkRunnerAllocations (make
// bench, section allocs; BENCHMARKS.md, "Allocations per operation"), not
// asserted here.
func TestRunnerRunsLongScripts(t *testing.T) {
	conn := newFixedConn("echo: hello")
	for _, pairs := range []int{200, 1200} {
		runEchoPairs(t, conn, echoPairs(t, pairs))
	}
}

// againLines are steps whose line is parsed again when they run.
var againLines = []string{
	`call_tool echo text:"hello"`,
	`call_tool echo {"text": "hello", "n": [1, 2, {"deep": true}]}`,
	`assert_contains "echo: hello"`,
}

// BenchmarkStepParsedAgain: a step's line parsed again when it runs, into
// room the runner reuses: allocs/op, none expected, a JSON argument
// included (it was validated when the script was parsed; the runner
// decodes it when it uses it). make bench (section allocs) runs it;
// BENCHMARKS.md gives the figure.
func BenchmarkStepParsedAgain(b *testing.B) {
	for i, line := range againLines {
		s := mustParse(b, "again.mcp", line+"\n")
		b.Run(strings.Fields(line)[0]+"-"+strconv.Itoa(i), func(b *testing.B) {
			var p parser
			if _, err := s.command(&p, s.Step(0)); err != nil { // the room, made once
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.command(&p, s.Step(0)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A step's line parsed again, into the room of the parse before, reads
// the same command each time. What it allocates is a figure of
// BenchmarkStepParsedAgain (make bench, section allocs; BENCHMARKS.md,
// "Allocations per operation"), not asserted here.
func TestStepParsedAgain(t *testing.T) {
	for _, line := range againLines {
		s := mustParse(t, "again.mcp", line+"\n")
		var p parser
		first, err := s.command(&p, s.Step(0))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%+v", first)
		for range 3 {
			again, err := s.command(&p, s.Step(0))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%+v", again); got != want {
				t.Errorf("%s parsed again: %s, first %s", line, got, want)
			}
		}
	}
}

// longScript is a script of n pairs call_tool + assert_contains, each
// call with its own argument and a comment.
func longScript(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "call_tool echo text:\"hello-%d\"   # a comment\nassert_contains \"echo: hello-%d\"\n", i, i)
	}
	return []byte(b.String())
}

// BenchmarkParseAllocations: parsing a script of 4,000 steps (allocs/op,
// a few dozen at most: its steps are one block without pointers, not an
// object a step) and reading one of its steps (Step, none expected). make
// bench (section allocs) runs it; BENCHMARKS.md gives the figures.
func BenchmarkParseAllocations(b *testing.B) {
	src := longScript(2000)
	b.Run("ParseFile-4000-steps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseFile("long.mcp", src); err != nil {
				b.Fatal(err)
			}
		}
	})
	s := mustParse(b, "long.mcp", string(src))
	b.Run("Step", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if st := s.Step(7); st.Line != 8 {
				b.Fatalf("step 7 on line %d", st.Line)
			}
		}
	})
}

// A parsed script holds its steps as one block without pointers, made
// into Steps from its text as they are read, so the allocations of a
// parse do not grow with the number of steps: ten times the steps may add
// fewer than one allocation in ten added steps (an object a step would add
// one or more a step). Counted allocations, which no load moves; what a
// parse allocates is a figure of BenchmarkParseAllocations (make bench,
// section allocs; BENCHMARKS.md, "Allocations per operation").
func TestParsedScriptHoldsNoObjectPerStep(t *testing.T) {
	const n = 2000
	s := mustParse(t, "long.mcp", string(longScript(n)))
	if s.NumSteps() != 2*n {
		t.Fatalf("%d steps, want %d", s.NumSteps(), 2*n)
	}
	if st := s.Step(2*n - 2); st.Line != 2*n-1 || st.Col != 1 || st.Command != "call_tool" || st.Text != fmt.Sprintf(`call_tool echo text:"hello-%d"`, n-1) {
		t.Errorf("the last call is %+v", st)
	}
	parse := func(src []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := ParseFile("long.mcp", src); err != nil {
				panic(err)
			}
		})
	}
	small, large := parse(longScript(n/10)), parse(longScript(n))
	if added := 2 * (n - n/10); large-small >= float64(added)/10 {
		t.Errorf("parsing %d steps allocates %.0f times, %d steps %.0f: the allocations grow with the steps", 2*n, large, 2*(n/10), small)
	}
}
