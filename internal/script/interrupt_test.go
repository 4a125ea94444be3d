package script

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/report/junit"
)

// interruptingConn is interrupted (the run's context canceled, as Ctrl-C
// does) while its call waits on the server, and fails the call as a
// session then does.
type interruptingConn struct {
	*fixedConn
	interrupt context.CancelFunc
}

func (c interruptingConn) CallTool(ctx context.Context, _ string, _ map[string]any, _ []answer.Spec) (*Outcome, error) {
	c.interrupt()
	return nil, fmt.Errorf(`tools/call "echo": the server's answer could not be read: %w`, ctx.Err())
}

// A run interrupted while a step waits on the server says the step was
// interrupted, not that the server failed: in the step's message, in the
// JSON report (status "interrupted", exit code 130) and in JUnit (skipped,
// no failure); the steps after it and the scripts whose turn had not come
// do not run, and are no connect error either.
func TestInterruptedRun(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	conn := interruptingConn{newFixedConn("hello"), interrupt}
	s := mustParse(t, "a.mcp", "call_tool echo text:\"x\"\nassert_contains \"hello\"\n")
	rep := RunAll(ctx, []*Script{s, mustParse(t, "b.mcp", "ping\n")}, RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }})
	if !rep.Interrupted || rep.ExitCode() != ExitInterrupted {
		t.Fatalf("interrupted %v, exit %d; want true, 130", rep.Interrupted, rep.ExitCode())
	}
	a, b := rep.Scripts[0], rep.Scripts[1]
	if len(a.Steps) != 1 || !a.Steps[0].Interrupted || a.Steps[0].Message != "call_tool: interrupted before the server answered" {
		t.Errorf("steps of a.mcp: %+v", a.Steps)
	}
	if !errors.Is(b.Err, ErrInterrupted) || b.Err.Error() != "not run: interrupted" {
		t.Errorf("b.mcp: %v, want not run: interrupted", b.Err)
	}

	var j strings.Builder
	if err := WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"exitCode": 130,`, `"interrupted": true,`, `"status": "interrupted",`} {
		if !strings.Contains(j.String(), want) {
			t.Errorf("JSON report has no %s:\n%s", want, j.String())
		}
	}
	var x strings.Builder
	if err := WriteJUnit(&x, rep); err != nil {
		t.Fatal(err)
	}
	var doc junit.Suites
	if err := xml.Unmarshal([]byte(x.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Failures != 0 || doc.Errors != 0 || doc.Skipped != 2 || !strings.Contains(x.String(), `<skipped message="call_tool: interrupted before the server answered">`) {
		t.Errorf("JUnit: failures %d, errors %d, skipped %d; want 0, 0, 2 (the step, b.mcp):\n%s", doc.Failures, doc.Errors, doc.Skipped, x.String())
	}
}

// A run whose context ended with a deadline (not canceled) is no
// interrupt: a step's time limit and a caller's bound fail as before.
func TestDeadlineIsNoInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer dcancel()
	s := mustParse(t, "a.mcp", "ping\n")
	conn := newFixedConn("hello")
	connect := RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }}
	if rep := RunAll(ctx, []*Script{s}, connect); !rep.Interrupted {
		t.Error("canceled: not interrupted")
	}
	if rep := RunAll(dctx, []*Script{s}, connect); rep.Interrupted || rep.ExitCode() == ExitInterrupted || errors.Is(rep.Scripts[0].Err, ErrInterrupted) {
		t.Errorf("deadline: interrupted %v, exit %d, %v", rep.Interrupted, rep.ExitCode(), rep.Scripts[0].Err)
	}
}

// A failed check an update rewrote no longer fails the run: the exit code
// counts it no more, the JSON report lists it (file, line, old, new) with
// status "updated", and JUnit skips it with what it expects now.
func TestMarkUpdated(t *testing.T) {
	s := mustParse(t, "u.mcp", "call_tool echo text:\"x\"\nassert_contains \"bye\"\n")
	rep := RunAll(context.Background(), []*Script{s}, RunOptions{Connect: func(context.Context) (Conn, error) { return newFixedConn("hello"), nil }})
	if rep.ExitCode() != ExitFailed {
		t.Fatalf("exit %d before the update, want 1", rep.ExitCode())
	}
	_, notes, err := Update(s, rep.Scripts[0])
	if err != nil || len(notes) != 1 || !notes[0].Updated || notes[0].Old != "bye" || notes[0].New != "hello" {
		t.Fatalf("notes %+v, %v", notes, err)
	}
	rep.Scripts[0].MarkUpdated(notes)
	if rep.ExitCode() != ExitOK {
		t.Errorf("exit %d after the update, want 0", rep.ExitCode())
	}
	var j strings.Builder
	if err := WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"exitCode": 0,`, `"file": "u.mcp",` + "\n      \"line\": 2,\n      \"old\": \"bye\",\n      \"new\": \"hello\"", `"status": "updated",`} {
		if !strings.Contains(j.String(), want) {
			t.Errorf("JSON report has no %s:\n%s", want, j.String())
		}
	}
	var x strings.Builder
	if err := WriteJUnit(&x, rep); err != nil {
		t.Fatal(err)
	}
	if want := `<skipped message="failed, and updated: the check now expects &#34;hello&#34; (it expected &#34;bye&#34;)">`; !strings.Contains(x.String(), want) || strings.Contains(x.String(), "<failure") {
		t.Errorf("JUnit:\n%s\nwant %s and no failure", x.String(), want)
	}
}

// An answer handed to a call the run's interrupt cut short was not used,
// but that says nothing of the server: its elicit_response step is
// interrupted as the call is, not failed, and the text summary, the JSON
// report and JUnit agree (no failure, two steps interrupted).
func TestInterruptedCallLeavesItsAnswerUndecided(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	conn := interruptingConn{newFixedConn("hello"), interrupt}
	s := mustParse(t, "a.mcp", "elicit_response accept '{\"decision\":\"continue\"}'\ncall_tool echo text:\"x\"\n")
	rep := RunAll(ctx, []*Script{s}, RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }})
	a := rep.Scripts[0]
	if len(a.Steps) != 2 {
		t.Fatalf("steps: %+v", a.Steps)
	}
	if st := a.Steps[0]; !st.Interrupted || st.Message != "not used: the run was interrupted during call_tool (line 2)" {
		t.Errorf("elicit_response step: interrupted %v, message %q", st.Interrupted, st.Message)
	}
	if p, f := rep.Counts(); p != 0 || f != 0 || a.InterruptedSteps() != 2 {
		t.Errorf("counts: %d passed, %d failed, %d interrupted; want 0, 0, 2", p, f, a.InterruptedSteps())
	}
	var txt strings.Builder
	writeScriptSummary(&txt, a)
	if txt.String() != "a.mcp: 0 passed, 0 failed, 2 interrupted\n" {
		t.Errorf("text summary %q", txt.String())
	}
	var j strings.Builder
	if err := WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(j.String(), `"status": "failed"`) || strings.Count(j.String(), `"status": "interrupted"`) != 2 || strings.Contains(j.String(), "never used") {
		t.Errorf("JSON report:\n%s", j.String())
	}
	var x strings.Builder
	if err := WriteJUnit(&x, rep); err != nil {
		t.Fatal(err)
	}
	var doc junit.Suites
	if err := xml.Unmarshal([]byte(x.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Failures != 0 || doc.Skipped != 2 {
		t.Errorf("JUnit: failures %d, skipped %d; want 0, 2:\n%s", doc.Failures, doc.Skipped, x.String())
	}
}
