package script

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// maxRunnerAllocsPerStep bounds what the runner allocates for a step of
// call_tool + assert_contains on a Conn that allocates nothing, beyond what
// a loop making the same calls allocates (each call's time limit and its
// arguments): for the line parsed again, the check and the report.
const maxRunnerAllocsPerStep = 1

// TestRunnerAllocationsPerStep fails when a step of a long script costs
// the runner more allocations than a loop of the same calls by more than
// maxRunnerAllocsPerStep: each is garbage the collector of a long run pays
// for, on top of what the calls cost.
func TestRunnerAllocationsPerStep(t *testing.T) {
	conn := newFixedConn("echo: hello")
	ctx := context.Background()
	script := func(pairs int) *Script {
		var b strings.Builder
		for range pairs {
			b.WriteString("call_tool echo text:\"hello\"\nassert_contains \"echo: hello\"\n")
		}
		return mustParse(t, "allocs.mcp", b.String())
	}
	run := func(s *Script) float64 {
		opts := RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }, Progress: io.Discard}
		return testing.AllocsPerRun(5, func() {
			if p, f := Run(ctx, s, opts).Counts(); f != 0 || p != s.NumSteps() {
				panic(fmt.Sprintf("%d passed, %d failed", p, f))
			}
		})
	}
	hello := strings.Repeat("hello", 1) // a value made at run time, as a script's is
	c := opaque(conn)
	loop := testing.AllocsPerRun(100, func() {
		cctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
		out, err := c.CallTool(cctx, "echo", map[string]any{"text": hello}, nil)
		cancel()
		if err != nil || !strings.Contains(out.Result.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text, "echo: "+hello) {
			panic("the loop's call failed")
		}
	})
	const short, long = 200, 1200
	perPair := (run(script(long)) - run(script(short))) / (long - short)
	own := (perPair - loop) / 2
	t.Logf("%.2f allocations a step pair, the loop %.2f a call: %.2f a step the runner's own", perPair, loop, own)
	if own > maxRunnerAllocsPerStep {
		t.Errorf("the runner allocates %.2f times a step beyond the loop's calls, more than %d", own, maxRunnerAllocsPerStep)
	}
}

// A step's line is parsed again when it runs into room the runner reuses:
// nothing is allocated, a JSON argument included (it was validated when
// the script was parsed; the runner decodes it when it uses it).
func TestStepParsedAgainAllocatesNothing(t *testing.T) {
	for _, line := range []string{
		`call_tool echo text:"hello"`,
		`call_tool echo {"text": "hello", "n": [1, 2, {"deep": true}]}`,
		`assert_contains "echo: hello"`,
	} {
		s := mustParse(t, "again.mcp", line+"\n")
		var p parser
		if _, err := s.command(&p, s.Step(0)); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() {
			if _, err := s.command(&p, s.Step(0)); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: %.1f allocations to parse it again, want none", line, n)
		}
	}
}

// A parsed script holds its steps as one block without pointers, made
// into Steps from its text as they are read: a script of thousands of
// steps is a few allocations, not one or more a step, and a long run's
// collector has nothing to follow in it at each cycle.
func TestParsedScriptHoldsNoObjectPerStep(t *testing.T) {
	var b strings.Builder
	const n = 2000
	for i := range n {
		fmt.Fprintf(&b, "call_tool echo text:\"hello-%d\"   # a comment\nassert_contains \"echo: hello-%d\"\n", i, i)
	}
	src := []byte(b.String())
	s := mustParse(t, "long.mcp", b.String())
	if s.NumSteps() != 2*n {
		t.Fatalf("%d steps, want %d", s.NumSteps(), 2*n)
	}
	if st := s.Step(2*n - 2); st.Line != 2*n-1 || st.Col != 1 || st.Command != "call_tool" || st.Text != fmt.Sprintf(`call_tool echo text:"hello-%d"`, n-1) {
		t.Errorf("the last call is %+v", st)
	}
	if allocs := testing.AllocsPerRun(5, func() {
		if _, err := ParseFile("long.mcp", src); err != nil {
			panic(err)
		}
	}); allocs > 40 {
		t.Errorf("parsing %d steps allocates %.0f times, want at most 40", 2*n, allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = s.Step(7) }); allocs != 0 {
		t.Errorf("Step allocates %.0f times, want none", allocs)
	}
}
