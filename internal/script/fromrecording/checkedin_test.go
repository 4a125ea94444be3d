package fromrecording

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/recordingtest"
	"github.com/askback/askback/internal/script"
)

var writeRecordings = flag.Bool("write-recordings", false, "record the checked-in recordings again from live sessions with bin/deployer")

// checkedIn are the recordings kept in the repository, for the examples of
// docs/record.md and the transcripts: how each was made, and the protocol
// version its script replays with.
var checkedIn = []struct {
	path, protocol string
	drive          func(t *testing.T, ctx context.Context, s *session.Session)
}{
	{"../../../examples/deployer/deploy.jsonl", "", func(t *testing.T, ctx context.Context, s *session.Session) {
		s.CallTool(ctx, "deploy", map[string]any{"service": "auth"}, queue(t, `accept:{"environment":"production","confirm":true}`))
		s.CallTool(ctx, "deploy", map[string]any{"service": "web"}, queue(t, "decline"))
	}},
	{"../../../examples/deployer/deploy-2025.jsonl", "2025-11-25", func(t *testing.T, ctx context.Context, s *session.Session) {
		s.CallTool(ctx, "deploy", map[string]any{"service": "auth"}, queue(t, `accept:{"environment":"staging","confirm":true}`))
	}},
}

// TestCheckedInRecordings reads the recordings kept in the repository and
// replays their scripts against the deployer; with -write-recordings it
// records them again first.
func TestCheckedInRecordings(t *testing.T) {
	deployer, _ := servers(t)
	for _, c := range checkedIn {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			if *writeRecordings {
				var buf bytes.Buffer
				w, err := recording.NewWriter(&buf, recording.Header{Transport: recording.TransportStdio, Server: "bin/deployer", Writer: "mcp-tester"}, recording.WriterOptions{})
				if err != nil {
					t.Fatal(err)
				}
				opts := sessionOptions(deployer, c.protocol)
				opts.Observe = recordingtest.Observer(w, func(err error) { t.Error(err) })
				s, err := session.Open(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				c.drive(t, context.Background(), s)
				s.Close()
				if err := w.Close("the client closed its side"); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(c.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, err := recording.Read(f, recording.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			src, warns := toScript(t, rec, Options{Source: c.path})
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			if rep, out := replay(t, src, deployer, c.protocol); rep.ExitCode() != script.ExitOK {
				t.Fatalf("the script of %s fails:\n%s", c.path, out)
			}
			if strings.Contains(src, "requestState") {
				t.Errorf("the script holds a requestState:\n%s", src)
			}
		})
	}
}
