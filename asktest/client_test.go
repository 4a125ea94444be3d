package asktest_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

var (
	web        = map[string]any{"service": "web"}
	production = map[string]any{"environment": "production", "confirm": true}
)

// In both eras a deploy asks once, and the answer given up front reaches
// the form: the result, the rounds and the question are there to check.
func TestCallAnswersInBothEras(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: era})
		if c.Protocol() != string(era) {
			t.Errorf("protocol %s, want %s", c.Protocol(), era)
		}
		r := c.CallTool("deploy", web, asktest.Accept(production))
		if got, want := r.Text(), "Rolling out web 2.4.1 to production."; got != want {
			t.Errorf("text %q, want %q", got, want)
		}
		wantRounds, wantVia, wantKey := 2, "input_required", "target"
		if era == asktest.Legacy {
			wantRounds, wantVia, wantKey = 1, "elicitation/create", ""
		}
		if r.Rounds != wantRounds {
			t.Errorf("rounds %d, want %d", r.Rounds, wantRounds)
		}
		if len(r.Questions) != 1 {
			t.Fatalf("questions: %v", r.Questions)
		}
		q := r.Questions[0]
		if q.Key != wantKey || q.Via != wantVia || q.Kind != asktest.KindForm || q.Round != 1 ||
			q.Message != "Roll out web version 2.4.1 – where to?" || q.Form == nil || q.Form.Field("confirm") == nil ||
			q.Answer == nil || q.Answer.Action != "accept" || q.Answer.Content["environment"] != "production" {
			t.Errorf("question %+v", q)
		}
		if len(c.Questions()) != 1 {
			t.Errorf("the session's questions: %v", c.Questions())
		}
	})
}

// Decline and cancel, a keyed answer, one for a round, a bare accept (the
// form's defaults) and an AnswerFunc each answer as given.
func TestAnswersGivenUpFront(t *testing.T) {
	c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: asktest.Modern})
	for _, tc := range []struct {
		name string
		a    asktest.Answer
		want string
	}{
		{"decline", asktest.Decline(), "Deployment not started (decline)."},
		{"cancel", asktest.Cancel(), "Deployment not started (cancel)."},
		{"keyed", asktest.Accept(production).For("target"), "Rolling out web 2.4.1 to production."},
		{"round", asktest.Accept(production).InRound(1), "Rolling out web 2.4.1 to production."},
		{"defaults", asktest.Accept(map[string]any{"confirm": true}), "Rolling out web 2.4.1 to staging."},
		{"func", asktest.AnswerFunc(func(q asktest.Question) asktest.Answer {
			if q.Key == "target" && strings.Contains(q.Message, "2.4.1") {
				return asktest.Accept(production)
			}
			return asktest.Decline()
		}), "Rolling out web 2.4.1 to production."},
	} {
		if got := c.CallTool("deploy", web, tc.a).Text(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A prompt asks too; a request for a model reply takes a Reply.
func TestPromptAndSampling(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: era, Sampling: true})
		if got := c.GetPrompt("greet", nil, asktest.Accept(map[string]any{"name": "Ada"})).Text(); got != "Hello, Ada." {
			t.Errorf("greet: %q", got)
		}
		r := c.CallTool("summarize", map[string]any{"text": "a long story"}, asktest.Reply("It is long."))
		if got := r.Text(); got != "Summary: It is long." {
			t.Errorf("summarize: %q", got)
		}
		if len(r.Questions) != 1 || r.Questions[0].Kind != asktest.KindSampling || r.Questions[0].Reply == nil {
			t.Errorf("questions: %v", r.Questions)
		}
	})
}

// A URL question takes OpenURL; a form answer does not fit it.
func TestOpenURL(t *testing.T) {
	c := asktest.NewClient(t, asktest.Server(newServer(broken{askURL: true})), nil)
	r := c.CallTool("deploy", web, asktest.OpenURL())
	if got := r.Text(); got != "Rolling out web 2.4.1 to staging." {
		t.Errorf("text %q", got)
	}
	if q := r.Questions[0]; q.Kind != asktest.KindURL || q.URL != "https://example.test/sign-in" {
		t.Errorf("question %+v", q)
	}
}
