package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var update = flag.Bool("update", false, "record testdata/*.jsonl again from real sessions against the deployer")

// deployer returns the path of the example deployer, built for the test.
func deployer(t testing.TB) string {
	t.Helper()
	return filepath.Join(testbin.Need(t, "./examples/deployer"), "deployer")
}

// recordSession records what mcp-tester's own client and a real server
// say: each call of calls (a tool name, its arguments, the answers to its
// questions), over stdio, in the protocol given ("" for the newest).
func recordSession(t testing.TB, server, protocol string, listTools bool, calls []recordedCall) []byte {
	t.Helper()
	var buf bytes.Buffer
	clock := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	w, err := recording.NewWriter(&buf, recording.Header{Transport: recording.TransportStdio, Server: "bin/deployer", Writer: "standin tests"},
		recording.WriterOptions{Now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := session.Open(ctx, session.Options{
		Target:       &target.Target{Command: server, Env: []string{"DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef"}},
		Protocol:     protocol,
		Capabilities: session.Capabilities{Form: true, URL: true},
		ClientName:   "mcp-tester",
		Validate:     true,
		Observe: func(sent bool, msg jsonrpc.Message) {
			b, err := jsonrpc.EncodeMessage(msg)
			if err != nil {
				t.Error(err)
				return
			}
			dir := recording.ServerToClient
			if sent {
				dir = recording.ClientToServer
			}
			if err := w.Message(dir, b, nil); err != nil {
				t.Error(err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if listTools {
		if _, _, err := s.ListTools(ctx, session.Pages{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range calls {
		q := answer.NewQueue()
		for _, a := range c.answers {
			spec, err := answer.ParseSpec(a)
			if err != nil {
				t.Fatal(err)
			}
			q.Push(spec)
		}
		if _, _, err := s.CallTool(ctx, c.tool, c.args, q); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
	}
	s.Close()
	if err := w.Close("the client closed its side"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type recordedCall struct {
	tool    string
	args    map[string]any
	answers []string
}

// The recordings of testdata, each made from a real session.
var recordings = map[string]struct {
	protocol  string
	listTools bool
	calls     []recordedCall
}{
	// A deploy in each era, answered, then one declined; the tools listed
	// first in one of them.
	"deploy-2026.jsonl": {"", true, []recordedCall{
		{"deploy", map[string]any{"service": "auth"}, []string{`accept:{"environment":"production","confirm":true}`}},
		{"deploy", map[string]any{"service": "web"}, []string{"decline"}},
	}},
	"deploy-2025.jsonl": {"2025-11-25", false, []recordedCall{
		{"deploy", map[string]any{"service": "auth"}, []string{`accept:{"environment":"production","confirm":true}`}},
		{"deploy", map[string]any{"service": "web"}, []string{"decline"}},
	}},
}

// The recordings in testdata are what a real session against the
// deployer records (the times and the length of the states aside):
// -update writes them again.
func TestRecordingsAreReal(t *testing.T) {
	bin := deployer(t)
	for name, r := range recordings {
		t.Run(name, func(t *testing.T) {
			got := recordSession(t, bin, r.protocol, r.listTools, r.calls)
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := messages(t, got), messages(t, want); g != w {
				t.Errorf("%s differs from a real session (go test -run TestRecordingsAreReal -update writes it again):\n got %s\nwant %s", path, g, w)
			}
		})
	}
}

// messages lists a recording's messages, without times and state notes.
func messages(t *testing.T, b []byte) string {
	t.Helper()
	rec, err := recording.Read(bytes.NewReader(b), recording.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rec.Entries {
		if !e.IsMessage() {
			continue
		}
		var v any
		if err := json.Unmarshal(e.Message, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		s := string(b)
		if i := strings.Index(s, "[requestState: "); i >= 0 {
			j := strings.Index(s[i:], "]")
			s = s[:i] + "[requestState]" + s[i+j+1:]
		}
		out = append(out, e.Dir+" "+s)
	}
	return strings.Join(out, "\n")
}
