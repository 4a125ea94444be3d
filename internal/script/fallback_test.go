package script

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// personAnswerer stands in for a person at the terminal: it answers every
// question with one answer and counts the questions it was asked.
type personAnswerer struct {
	mu    sync.Mutex
	asked []string
	res   *mcp.ElicitResult
}

func (p *personAnswerer) Answer(_ context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, q.Params.Message)
	return p.res, nil
}

func production() *personAnswerer {
	return &personAnswerer{res: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}}
}

func TestFallbackAnswersWhatNoElicitResponseCovers(t *testing.T) {
	connect := SessionConnectScript(deployerOptions(deployerBinary(t)))
	person := production()
	rep, out := runText(t, "ask.mcp", `call_tool deploy service:"auth-service"
assert_elicited "version 2.4.1"
assert_contains "to production"
`, RunOptions{ConnectScript: connect, Fallback: person, Verbose: true})
	if rep.ExitCode() != 0 {
		t.Fatalf("the run failed:\n%s", out)
	}
	if len(person.asked) != 1 || !strings.Contains(person.asked[0], "auth-service version 2.4.1") {
		t.Errorf("the person was asked %q; want the deploy question once", person.asked)
	}
	// The step report shows the person's answer like a queued one.
	if !strings.Contains(out, `accept {"confirm":true,"environment":"production"}`) {
		t.Errorf("the report does not show the answer given:\n%s", out)
	}
}

func TestQueuedAnswersWinOverTheFallback(t *testing.T) {
	connect := SessionConnectScript(deployerOptions(deployerBinary(t)))
	person := production()
	rep, out := runText(t, "queued.mcp", `elicit_response accept '{"environment": "staging", "confirm": true}'
call_tool deploy service:"auth-service"
assert_contains "to staging"
elicit_response decline
call_tool deploy service:"auth-service"
assert_contains "not started"
`, RunOptions{ConnectScript: connect, Fallback: person})
	if rep.ExitCode() != 0 {
		t.Fatalf("the run failed:\n%s", out)
	}
	if len(person.asked) != 0 {
		t.Errorf("the person was asked %q though the script answered", person.asked)
	}
}

func TestNoFallbackStillDeclines(t *testing.T) {
	connect := SessionConnectScript(deployerOptions(deployerBinary(t)))
	rep, out := runText(t, "none.mcp", `call_tool deploy service:"auth-service"
assert_contains "not started (decline)"
`, RunOptions{ConnectScript: connect})
	if rep.ExitCode() != 0 {
		t.Fatalf("the run failed:\n%s", out)
	}
}

// TestRecordWritesAReplayableScript records a run answered by the
// fallback, then replays the recording without it: it passes.
func TestRecordWritesAReplayableScript(t *testing.T) {
	connect := SessionConnectScript(deployerOptions(deployerBinary(t)))
	var steps []fromcall.Step
	rec := func(method, name string, args any, qs []exchange.Entry, result any) error {
		m, _ := args.(map[string]any)
		steps = append(steps, fromcall.Step{Method: method, Name: name, Args: m, Questions: qs, Result: result})
		return nil
	}
	rep, out := runText(t, "ask.mcp", `call_tool deploy service:"auth-service"
ping
expect_error call_tool no-such-tool
`, RunOptions{ConnectScript: connect, Fallback: production(), Record: rec})
	if rep.ExitCode() != 0 {
		t.Fatalf("the run failed:\n%s", out)
	}
	if len(steps) != 1 {
		t.Fatalf("recorded %d steps; want the one call that got a result", len(steps))
	}
	var b strings.Builder
	if err := fromcall.Write(&b, steps...); err != nil {
		t.Fatal(err)
	}
	want := `elicit_response accept '{"confirm":true,"environment":"production"}'
call_tool deploy service:"auth-service"
assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
assert_contains "Rolling out auth-service 2.4.1 to production."
`
	if b.String() != want {
		t.Errorf("recorded:\n%s\nwant:\n%s", b.String(), want)
	}
	rep, out = runText(t, "replay.mcp", b.String(), RunOptions{ConnectScript: connect})
	if rep.ExitCode() != 0 {
		t.Errorf("the recording does not replay:\n%s", out)
	}
}

func TestRecordErrorFailsTheStep(t *testing.T) {
	rep, out := runText(t, "r.mcp", "call_tool args name:\"x\"\n", RunOptions{
		Record: func(string, string, any, []exchange.Entry, any) error { return errors.New("disk full") },
	})
	if rep.ExitCode() == 0 || !strings.Contains(out, "disk full") {
		t.Errorf("a failed recording did not fail the step:\n%s", out)
	}
}
