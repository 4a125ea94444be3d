package fromrecording

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/recording/recordingtest"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// servers are the binaries these tests record and replay.
func servers(t *testing.T) (deployer, variant string) {
	t.Helper()
	dir := bins(t)
	return dir + "/deployer", dir + "/deployvariant"
}

func bins(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the deployer and the fixtures")
	}
	return testbin.Need(t, "./examples/deployer", "./internal/testsupport/fixtures/deployvariant", "./internal/testsupport/fixtures/askserver", "./internal/testsupport/fixtures/handbook")
}

func sessionOptions(command, protocol string) session.Options {
	return session.Options{
		Target:       &target.Target{Command: command, Env: []string{"DEPLOY_STATE_KEY=" + strings.Repeat("k", 40)}},
		Protocol:     protocol,
		Capabilities: session.Capabilities{Form: true, URL: true},
		Validate:     true,
		Timeout:      30 * time.Second,
		Tasks:        true,
	}
}

// recordSession records what a session with command says while drive
// runs, as the proxy over stdio would.
func recordSession(t *testing.T, command, protocol string, drive func(ctx context.Context, s *session.Session)) *recording.Recording {
	t.Helper()
	return recordWith(t, sessionOptions(command, protocol), drive)
}

func recordWith(t *testing.T, opts session.Options, drive func(ctx context.Context, s *session.Session)) *recording.Recording {
	t.Helper()
	command := opts.Target.Command
	var buf bytes.Buffer
	var mu sync.Mutex
	w, err := recording.NewWriter(&lockedWriter{w: &buf, mu: &mu}, recording.Header{Transport: recording.TransportStdio, Server: command}, recording.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Observe = recordingtest.Observer(w, func(err error) { t.Error(err) })
	ctx := context.Background()
	s, err := session.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	drive(ctx, s)
	s.Close()
	if err := w.Close("the client closed its side"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	rec, err := recording.Read(bytes.NewReader(buf.Bytes()), recording.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func queue(t *testing.T, specs ...string) answer.Answerer {
	var out []answer.Spec
	for _, s := range specs {
		sp, err := answer.ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sp)
	}
	return answer.NewQueue(out...)
}

func toScript(t *testing.T, rec *recording.Recording, opts Options) (string, []Warning) {
	t.Helper()
	conv, err := conversation.Read(rec, conversation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, warns, err := Write(conv, opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(src), warns
}

// replay runs src against command and returns the report's text.
func replay(t *testing.T, src, command, protocol string) (*script.Report, string) {
	t.Helper()
	return replayWith(t, src, sessionOptions(command, protocol))
}

func replayWith(t *testing.T, src string, opts session.Options) (*script.Report, string) {
	t.Helper()
	s, err := script.ParseFile("replay.mcp", []byte(src))
	if err != nil {
		t.Fatalf("the script does not parse: %v\n%s", err, src)
	}
	var out strings.Builder
	rep := script.Run(context.Background(), s, script.RunOptions{ConnectScript: script.SessionConnectScript(opts), Progress: &out})
	return rep, out.String()
}

func TestDeployBothEras(t *testing.T) {
	deployer, variant := servers(t)
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			rec := recordSession(t, deployer, protocol, func(ctx context.Context, s *session.Session) {
				if _, _, err := s.CallTool(ctx, "deploy", map[string]any{"service": "auth"}, queue(t, `accept:{"environment":"production","confirm":true}`)); err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.CallTool(ctx, "deploy", map[string]any{"service": "web"}, queue(t, "decline")); err != nil {
					t.Fatal(err)
				}
			})
			src, warns := toScript(t, rec, Options{Source: "deploy.jsonl", Output: "deploy.mcp"})
			t.Logf("script:\n%s", src)
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			rep, out := replay(t, src, deployer, protocol)
			if rep.ExitCode() != script.ExitOK {
				t.Fatalf("the script fails against the deployer:\n%s\n%s", src, out)
			}
			rep, out = replay(t, src, variant+" -variant message", protocol)
			if rep.ExitCode() != script.ExitFailed || !strings.Contains(out, "asks something else") {
				t.Fatalf("the script does not catch the changed question:\n%s", out)
			}
			t.Logf("against the changed question:\n%s", out)
		})
	}
}

func TestShapeAndIgnore(t *testing.T) {
	deployer, variant := servers(t)
	rec := recordSession(t, deployer, "", func(ctx context.Context, s *session.Session) {
		if _, _, err := s.CallTool(ctx, "deploy", map[string]any{"service": "auth"}, queue(t, `accept:{"environment":"production","confirm":true}`)); err != nil {
			t.Fatal(err)
		}
	})
	src, _ := toScript(t, rec, Options{Match: expect.Shape})
	t.Logf("script:\n%s", src)
	if rep, out := replay(t, src, variant+" -variant result", ""); rep.ExitCode() != script.ExitOK {
		t.Fatalf("a shape-only script fails on a changed text:\n%s", out)
	}
	if rep, out := replay(t, src, variant+" -variant choices", ""); rep.ExitCode() != script.ExitFailed {
		t.Fatalf("a shape-only script does not catch a changed form:\n%s", out)
	} else {
		t.Logf("%s", out)
	}
}

func TestTask(t *testing.T) {
	deployer, _ := servers(t)
	fast := deployer + " -rollout-step 5ms"
	rec := recordSession(t, fast, "", func(ctx context.Context, s *session.Session) {
		if _, _, err := s.CallTool(ctx, "rollout", map[string]any{"service": "auth", "version": "2.5.0"}, queue(t, `accept:{"decision":"continue"}`)); err != nil {
			t.Fatal(err)
		}
	})
	src, warns := toScript(t, rec, Options{})
	t.Logf("script:\n%s", src)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	for _, want := range []string{"elicit_response decision=accept '{\"decision\":\"continue\"}'\ncall_tool rollout service:\"auth\" version:\"2.5.0\"\n", "assert_task_status completed\n"} {
		if !strings.Contains(src, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if rep, out := replay(t, src, fast, ""); rep.ExitCode() != script.ExitOK {
		t.Fatalf("the script fails against the deployer:\n%s", out)
	}
}

func TestEveryKindOfCall(t *testing.T) {
	dir := bins(t)
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("askserver "+protocol, func(t *testing.T) {
			rec := recordSession(t, dir+"/askserver", protocol, func(ctx context.Context, s *session.Session) {
				s.CallTool(ctx, "pair", nil, queue(t, `a=accept:{"ok":true}`, "b=decline"))
				s.CallTool(ctx, "twice", nil, queue(t, `accept:{"ok":true}`, `accept:{"ok":false}`))
				s.CallTool(ctx, "echo", nil, queue(t))
				s.CallTool(ctx, "fail", nil, queue(t))
				s.GetPrompt(ctx, "greeting", nil, queue(t, `accept:{"name":"Ann"}`))
				s.ReadResource(ctx, "config://secret-settings", queue(t, "accept"))
				s.CallTool(ctx, "nosuchtool", nil, queue(t))
			})
			src, warns := toScript(t, rec, Options{})
			t.Logf("script:\n%s", src)
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			if rep, out := replay(t, src, dir+"/askserver", protocol); rep.ExitCode() != script.ExitOK {
				t.Fatalf("the script fails against the server it was recorded with:\n%s", out)
			}
		})
		t.Run("handbook "+protocol, func(t *testing.T) {
			opts := sessionOptions(dir+"/handbook", protocol)
			opts.Sampler = answer.NewSamples(answer.Sample{Text: "A short summary.", Model: "local-llama"})
			root, _ := answer.ParseRoot("file:///work/repo=repo")
			opts.Roots = append(opts.Roots, root)
			rec := recordWith(t, opts, func(ctx context.Context, s *session.Session) {
				s.CallTool(ctx, "summarize", map[string]any{"text": "a long story"}, opts.Sampler.(answer.Answerer))
				s.CallTool(ctx, "list_roots", nil, queue(t))
				s.CallTool(ctx, "create_user", map[string]any{"name": "Ann"}, queue(t))
				s.CallTool(ctx, "error_trigger", map[string]any{"code": -32050, "message": "refused at 2026-12-03T10:00:00Z"}, queue(t))
				s.GetPrompt(ctx, "code_review", map[string]string{"file_path": "main.go"}, queue(t))
			})
			src, warns := toScript(t, rec, Options{})
			t.Logf("script:\n%s", src)
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			ropts := sessionOptions(dir+"/handbook", protocol)
			if rep, out := replayWith(t, src, ropts); rep.ExitCode() != script.ExitOK {
				t.Fatalf("the script fails against the server it was recorded with:\n%s", out)
			}
		})
	}
}

func TestURLQuestions(t *testing.T) {
	dir := bins(t)
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			rec := recordSession(t, dir+"/askserver", protocol, func(ctx context.Context, s *session.Session) {
				s.CallTool(ctx, "connect", nil, queue(t, "accept"))
				s.CallTool(ctx, "legacyurl", nil, queue(t, "accept"))
			})
			src, warns := toScript(t, rec, Options{})
			t.Logf("script:\n%s\nwarnings: %v", src, warns)
			if len(warns) != 2 || !strings.Contains(warns[0].Text, "the person accepted to open https://127.0.0.1:9/connect/github?session=redacted") {
				t.Errorf("warnings: %v", warns)
			}
			if strings.Contains(src, "session=abc") || len(warns) > 0 && strings.Contains(warns[0].Text, "session=abc") {
				t.Errorf("the link's session is in the script or its warnings:\n%s\n%v", src, warns)
			}
			if !strings.Contains(src, "# the person accepted to open https://127.0.0.1:9/connect/github?session=redacted; a script accepts without opening it\n") ||
				!strings.Contains(src, "# the result depended on what the person did in the browser; its checks are left as comments:\n") {
				t.Errorf("the script does not say what it cannot replay:\n%s", src)
			}
			if rep, out := replay(t, src, dir+"/askserver", protocol); rep.ExitCode() != script.ExitOK {
				t.Fatalf("the script fails against the server it was recorded with:\n%s", out)
			}
		})
	}
}

func TestLists(t *testing.T) {
	dir := bins(t)
	rec := recordSession(t, dir+"/handbook", "", func(ctx context.Context, s *session.Session) {
		if _, _, err := s.ListTools(ctx, session.Pages{All: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ListPrompts(ctx, session.Pages{All: true}); err != nil {
			t.Fatal(err)
		}
		s.CallTool(ctx, "add", map[string]any{"a": 1, "b": 2}, queue(t))
	})
	conv, err := conversation.Read(rec, conversation.Options{Lists: true})
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := Write(conv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("script:\n%s", src)
	for _, want := range []string{"\nlist tools\nassert_json <<END\n{\n  \"tools\": [\n", "\nlist prompts\nassert_json '{\"prompts\":[{\"arguments\":[{\"name\":\"file_path\""} {
		if !strings.Contains(string(src), want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if rep, out := replay(t, string(src), dir+"/handbook", ""); rep.ExitCode() != script.ExitOK {
		t.Fatalf("the script fails:\n%s", out)
	}
	if rep, out := replay(t, string(src), dir+"/askserver", ""); rep.ExitCode() != script.ExitFailed || !strings.Contains(out, "✗ assert_json <<END") {
		t.Fatalf("the script passes against another server:\n%s", out)
	}
}
