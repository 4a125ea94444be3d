package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func rolloutServer(t *testing.T, step time.Duration) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "test"}, nil)
	ext, err := registerRollout(s, &rolloutOptions{Instances: 4, Step: step, Tasks: &tasks.Options{PollInterval: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), time.Minute) // against a hang
		defer stop()
		_ = ext.Close(ctx)
	})
	return s
}

// taskSession connects a task-aware client to s over tr.
func taskSession(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "tester", Version: "test"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), taskclient.Transport(tr), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func inMemory(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return taskSession(t, ct)
}

func overHTTP(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return overHTTPURL(t, hs.URL)
}

// overHTTPURL connects a task-aware client to the server at url.
func overHTTPURL(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	return taskSession(t, &mcp.StreamableClientTransport{Endpoint: url})
}

// record keeps what the client saw: questions and status messages.
type record struct {
	mu        sync.Mutex
	questions []string
	statuses  []string
}

func (r *record) options(answer *mcp.ElicitResult) *taskclient.Options {
	return &taskclient.Options{
		DefaultPollInterval: time.Millisecond,
		Answer: func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			r.mu.Lock()
			r.questions = append(r.questions, key+": "+p.Message)
			r.mu.Unlock()
			return answer, nil
		},
		OnUpdate: func(u taskclient.Update) {
			r.mu.Lock()
			r.statuses = append(r.statuses, string(u.Status)+": "+u.StatusMessage)
			r.mu.Unlock()
		},
	}
}

var rolloutArgs = map[string]any{"service": "auth-service", "version": "2.4.1"}

func decide(d string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}
}

func callText(t *testing.T, tc *taskclient.Client) string {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer stop()
	res, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "rollout", Arguments: rolloutArgs})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %+v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestRolloutAnswers(t *testing.T) {
	for _, transport := range []struct {
		name    string
		connect func(*testing.T, *mcp.Server) *mcp.ClientSession
	}{{"in-memory", inMemory}, {"streamable-http", overHTTP}} {
		for _, tc := range []struct {
			answer *mcp.ElicitResult
			want   string
		}{
			{decide("continue"), "Rollout of auth-service 2.4.1 complete: 4 of 4 instances updated."},
			{decide("rollback"), "Rolled back auth-service 2.4.1: the 2 updated instances run the previous version again; 2.4.1 runs nowhere."},
			{decide("pause"), "Rollout of auth-service 2.4.1 paused at 2 of 4 instances: nothing more was rolled out."},
			{&mcp.ElicitResult{Action: "decline"}, "Rollout of auth-service 2.4.1 stopped at 2 of 4 instances (decline): nothing more was rolled out."},
			{&mcp.ElicitResult{Action: "cancel"}, "Rollout of auth-service 2.4.1 stopped at 2 of 4 instances (cancel): nothing more was rolled out."},
		} {
			name := transport.name + "/" + tc.answer.Action
			if d, ok := tc.answer.Content["decision"]; ok {
				name += "-" + d.(string)
			}
			t.Run(name, func(t *testing.T) {
				var rec record
				cs := transport.connect(t, rolloutServer(t, time.Millisecond))
				got := callText(t, taskclient.New(cs, rec.options(tc.answer)))
				if got != tc.want {
					t.Errorf("got  %q\nwant %q", got, tc.want)
				}
				wantQ := "decision: Rollout of auth-service 2.4.1: 50% of instances updated, error rate 0.3 % — continue?"
				if len(rec.questions) != 1 || rec.questions[0] != wantQ {
					t.Errorf("questions %q, want once %q", rec.questions, wantQ)
				}
				if last := rec.statuses[len(rec.statuses)-1]; !strings.HasPrefix(last, "completed") {
					t.Errorf("last status %q", last)
				}
			})
		}
	}
}

// The rollout's steps run in fake time (testing/synctest): in memory,
// nothing waits for a real clock.
func TestRolloutShowsProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec record
		cs := inMemory(t, rolloutServer(t, 20*time.Millisecond))
		callText(t, taskclient.New(cs, rec.options(decide("continue"))))
		joined := strings.Join(rec.statuses, "\n")
		for _, want := range []string{"working: Updating instances to auth-service 2.4.1 (", "input_required: Waiting for an answer: Rollout of auth-service", "completed"} {
			if !strings.Contains(joined, want) {
				t.Errorf("statuses lack %q:\n%s", want, joined)
			}
		}
	})
}

func TestRolloutCancelledMidway(t *testing.T) {
	for _, c := range []struct {
		transport string
		connect   func(*testing.T, *mcp.Server) *mcp.ClientSession
		when      tasks.Status
		// fakeTime runs the case in a synctest bubble; a real network
		// needs the real clock.
		fakeTime bool
	}{
		{"in-memory", inMemory, tasks.StatusWorking, true},
		{"in-memory", inMemory, tasks.StatusInputRequired, true},
		{"streamable-http", overHTTP, tasks.StatusWorking, false},
		{"streamable-http", overHTTP, tasks.StatusInputRequired, false},
	} {
		when := c.when
		// To be cancelled while working, the rollout's steps never end on
		// their own: over a real network a busy machine's first tasks/get
		// may come after two short steps, when the task already waits for
		// its answer.
		step := 30 * time.Millisecond
		if when == tasks.StatusWorking {
			step = time.Hour
		}
		run := func(t *testing.T) {
			cs := c.connect(t, rolloutServer(t, step))
			tc := taskclient.New(cs, &taskclient.Options{DefaultPollInterval: time.Millisecond})
			ctx := context.Background()
			s, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "rollout", Arguments: rolloutArgs})
			if err != nil || s.Task == nil {
				t.Fatalf("rollout did not start a task: %+v, %v", s, err)
			}
			id := s.Task.TaskID
			deadline := time.Now().Add(time.Minute) // against a hang
			for {
				g, err := tc.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if g.Status == when {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("never saw %s", when)
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := tc.Cancel(ctx, id); err != nil {
				t.Fatal(err)
			}
			_, err = tc.Wait(ctx, id)
			if !errors.Is(err, taskclient.ErrCancelled) {
				t.Fatalf("after tasks/cancel: %v, want cancelled", err)
			}
		}
		t.Run(c.transport+"/"+string(when), func(t *testing.T) {
			if c.fakeTime {
				synctest.Test(t, run)
				return
			}
			run(t)
		})
	}
}

func TestRolloutWithoutTheExtensionPausesSafely(t *testing.T) {
	s := rolloutServer(t, time.Millisecond)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "test"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rollout", Arguments: rolloutArgs})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(got, "paused at 2 of 4 instances: the client cannot be asked") {
		t.Errorf("got %q", got)
	}
}

func TestRolloutNeedsServiceAndVersion(t *testing.T) {
	cs := inMemory(t, rolloutServer(t, time.Millisecond))
	res, err := taskclient.New(cs, &taskclient.Options{DefaultPollInterval: time.Millisecond}).CallTool(context.Background(),
		&mcp.CallToolParams{Name: "rollout", Arguments: map[string]any{"service": "auth-service"}})
	if err == nil && !res.IsError {
		t.Fatalf("a rollout without a version ran: %+v", res)
	}
}
