package login_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
)

// stepLog keeps the steps a login reports.
type stepLog struct {
	mu    sync.Mutex
	steps []login.Step
}

func (s *stepLog) add(st login.Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, st)
}

func (s *stepLog) kinds() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, st := range s.steps {
		if len(out) == 0 || out[len(out)-1] != st.Kind {
			out = append(out, st.Kind)
		}
	}
	return out
}

func (s *stepLog) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, st := range s.steps {
		fmt.Fprintf(&b, "%+v\n", st)
	}
	return b.String()
}

// A login tells its observer each of its steps, in order (the challenge,
// discovery, registration, the browser, the token; then a cached login,
// a refresh), and no step holds a token or a code.
func TestLoginReportsItsSteps(t *testing.T) {
	server, _ := servers(t, authserver.Options{TokenTTL: 10 * time.Minute})
	dir := filepath.Join(t.TempDir(), "tokens")
	l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
	steps := &stepLog{}
	l.OnStep = steps.add
	if _, err := call(t, l, server, "whoami", nil); err != nil {
		t.Fatalf("call: %v\n%s", err, out)
	}
	want := []string{login.StepChallenge, login.StepDiscovery, login.StepRegistration, login.StepAuthorization, login.StepToken, login.StepDone}
	if got := steps.kinds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("steps %v; want %v\n%s", got, want, steps.text())
	}
	e, err := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if err != nil || e == nil {
		t.Fatalf("cached login: %v", err)
	}
	secrets := []string{e.AccessToken, e.RefreshToken}

	// The next run takes up the cached login, and refreshes it near its
	// expiry.
	l2, out2 := newLogin(dir, login.Settings{}, &person{user: "mallory"})
	later := &stepLog{}
	l2.OnStep = later.add
	l2.Now = func() time.Time { return e.Expiry.Add(-30 * time.Second) }
	if _, err := call(t, l2, server, "whoami", nil); err != nil {
		t.Fatalf("after the clock moved: %v\n%s", err, out2)
	}
	if got := strings.Join(later.kinds(), " "); got != login.StepCache+" "+login.StepRefresh {
		t.Errorf("steps %s; want cache, refresh\n%s", got, later.text())
	}
	e2, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if e2 != nil {
		secrets = append(secrets, e2.AccessToken, e2.RefreshToken)
	}
	all := steps.text() + later.text()
	for _, s := range secrets {
		if s != "" && strings.Contains(all, s) {
			t.Errorf("a step holds a token:\n%s", all)
		}
	}
	for _, leak := range []string{"code=", "state=", "code_verifier", "?"} {
		if strings.Contains(all, leak) {
			t.Errorf("a step holds %q:\n%s", leak, all)
		}
	}
}

// A login for another identity (the audit's second user) tells the same
// observers of its tokens and steps: its tokens are hidden on the output
// as the first identity's are.
func TestForKeepsTheObservers(t *testing.T) {
	var tokens []string
	steps := &stepLog{}
	l := &login.Login{OnToken: func(ts ...string) { tokens = append(tokens, ts...) }, OnStep: steps.add}
	other := l.For("bob")
	if other.OnToken == nil || other.OnStep == nil {
		t.Fatal("For dropped an observer")
	}
	other.OnToken("bobs-token")
	other.OnStep(login.Step{Kind: login.StepDone})
	if len(tokens) != 1 || len(steps.kinds()) != 1 {
		t.Errorf("tokens %q, steps %v", tokens, steps.kinds())
	}
}
