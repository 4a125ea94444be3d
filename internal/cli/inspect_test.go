package cli

import (
	"context"
	"reflect"
	"testing"

	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNewInspectCmd(t *testing.T) {
	conn := connDefaults("./server", true)
	runFlagCases(t, newInspectCmd, []flagCase[InspectOptions]{
		{name: "defaults", args: []string{"-c", "./server"},
			want: InspectOptions{Conn: conn, Format: "text", SARIFFile: "catalog.json", MaxProbes: 20}},
		{name: "probes and icons", args: []string{"-c", "./server", "--probe", "--max-probes", "3", "--check-icons", "--download-icons", "icons", "--min-score", "80", "--format", "json", "--html", "i.html", "--no-tasks"},
			want: InspectOptions{Conn: func() ConnOptions { c := conn; c.NoTasks = true; return c }(), Format: "json", SARIFFile: "catalog.json", Probe: true, MaxProbes: 3, CheckIcons: true, DownloadIcons: "icons", MinScore: 80, HTML: "i.html"}},
		{name: "no answers to give", args: []string{"-c", "./server", "--elicit", "accept"}, wantErr: "unknown flag: --elicit"},
	})
}

// TestProbeQuestions: a probe's questions are the elicitations the server
// sent while it ran; its roots/list and sampling/createMessage requests
// (the reference server asks for the roots right after connecting, while
// the first probe may run) are no question of the tool, and never a form.
func TestProbeQuestions(t *testing.T) {
	call := &session.Call{Questions: []exchange.Entry{
		{Method: "tools/call", Name: "slow", Via: exchange.ViaRootsRequest, Asks: exchange.AsksRoots},
		{Method: "tools/call", Name: "slow", Via: exchange.ViaSamplingRequest, Asks: exchange.AsksSampling},
		{Method: "tools/call", Name: "slow", Via: exchange.ViaRequest, Params: &mcp.ElicitParams{Message: "Which account?"}},
		{Method: "tools/call", Name: "slow", Via: exchange.ViaInputRequired, Key: "q2", Params: &mcp.ElicitParams{Mode: "url", URL: "https://x.example/ok", Message: "Sign in"}},
	}}
	p := probed(context.Background(), inspect.Probe{Tool: "slow"}, func(context.Context) (*session.Call, error) { return call, nil })
	want := []inspect.Question{{Mode: "form", Message: "Which account?"}, {Key: "q2", Mode: "url", Message: "Sign in"}}
	if !reflect.DeepEqual(p.Questions, want) {
		t.Fatalf("questions = %+v, want %+v", p.Questions, want)
	}
	roots := &session.Call{Questions: call.Questions[:2]}
	if p := probed(context.Background(), inspect.Probe{Tool: "slow"}, func(context.Context) (*session.Call, error) { return roots, nil }); p.Questions != nil {
		t.Fatalf("roots and sampling alone: questions = %+v, want none", p.Questions)
	}
}
