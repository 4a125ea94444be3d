package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/tasks"
)

func TestNewCallCmd(t *testing.T) {
	conn := func(f func(*ConnOptions)) ConnOptions {
		o := connDefaults("./deployer", true)
		if f != nil {
			f(&o)
		}
		return o
	}
	runFlagCases(t, newCallCmd, []flagCase[CallOptions]{
		{name: "defaults", args: []string{"deploy", "-c", "./deployer"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "text", Conn: conn(nil)}},
		{name: "arguments and answers", args: []string{"deploy", "-c", "./deployer", "--args", `{"service":"auth-service"}`, "--elicit", "decline", "--elicit", "target=cancel"},
			want: CallOptions{Tool: "deploy", Args: `{"service":"auth-service"}`, Format: "text",
				Conn: conn(nil), Answers: AnswerOptions{Elicit: []string{"decline", "target=cancel"}}}},
		{name: "--json", args: []string{"deploy", "-c", "./deployer", "--json"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "json", Conn: conn(nil)}},
		{name: "--format json --no-wait", args: []string{"deploy", "-c", "./deployer", "--format", "json", "--no-wait"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "json", NoWait: true, Conn: conn(nil)}},
		{name: "a person answers", args: []string{"deploy", "-c", "./deployer", "--interactive", "--accessible", "--open", "--record", "x.mcp"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "text", Conn: conn(nil),
				Answers: AnswerOptions{Interactive: true, Accessible: true, Open: true, Record: "x.mcp"}}},
		{name: "what the tester declares", args: []string{"deploy", "-u", "http://127.0.0.1:1/mcp", "-H", "A: 1", "-H", "B: 2", "--transport", "sse", "--protocol", "2025-11-25",
			"--timeout", "5s", "--max-rounds", "3", "--no-url", "--no-elicitation", "--no-validate", "--no-tasks", "-p", "staging"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "text", Conn: ConnOptions{URL: "http://127.0.0.1:1/mcp", Headers: []string{"A: 1", "B: 2"},
				Transport: "sse", Protocol: "2025-11-25", Timeout: 5 * time.Second, MaxRounds: 3, NoURL: true, NoElicitation: true, NoValidate: true, NoTasks: true, Profile: "staging"}}},
		{name: "the trace", args: []string{"deploy", "-c", "./deployer", "--trace", "t.jsonl", "-v", "--show-state"},
			want: CallOptions{Tool: "deploy", Args: "{}", Format: "text", Conn: conn(func(o *ConnOptions) { o.TraceFile, o.Verbose, o.ShowState = "t.jsonl", true, true })}},
		{name: "no tool", args: []string{"-c", "./deployer"}, wantErr: "accepts 1 arg(s), received 0"},
		{name: "two tools", args: []string{"a", "b"}, wantErr: "accepts 1 arg(s), received 2"},
		{name: "--format xml", args: []string{"deploy", "--format", "xml"}, wantErr: `"xml": use text or json`},
		{name: "a list's flag", args: []string{"deploy", "--cursor", "x"}, wantErr: "unknown flag: --cursor"},
	})
}

// A call over HTTP keeps one connection for all its requests (discovery
// and both rounds), even when the server is slow to end each response.
func TestCallKeepsOneConnection(t *testing.T) {
	t.Parallel()
	url, accepts := countingBenchServer(t, 20*time.Millisecond)
	io, _, out, errOut := iostreams.Test()
	code := Main(context.Background(), io, []string{"call", "confirm", "-u", url, "--elicit", `accept:{"go":true}`})
	if code != 0 || !strings.Contains(out.String(), "got accept") {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	if n := accepts.Accepted(); n != 1 {
		t.Errorf("one call of two rounds: the server accepted %d connections, want 1", n)
	}
}

// An --elicit answer left over by --no-wait is not said to be one the
// server never asked for: the task asks later, or asks now unanswered.
func TestNoWaitUnused(t *testing.T) {
	if got := noWaitUnused(nil); got != "" {
		t.Errorf("no task: %q, want none", got)
	}
	for status, want := range map[tasks.Status]string{
		tasks.StatusWorking:       "--no-wait returned when task T1 was created (working), before it asked anything: give the answer to mcp-tester tasks wait T1",
		tasks.StatusInputRequired: "--no-wait returned when task T1 asked for input (input_required), without answering: give the answer to mcp-tester tasks wait T1",
	} {
		task := &tasks.CreateTaskResult{Info: tasks.Info{TaskID: "T1", Status: status}}
		if got := noWaitUnused(task); got != want {
			t.Errorf("%s:\n got %q\nwant %q", status, got, want)
		}
	}
}
