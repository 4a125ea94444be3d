package asktest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Era is a protocol version, which says how a server asks.
type Era string

// The two eras of asking. Any other version the go-sdk speaks may be given
// as an Era too (Era("2025-06-18")).
const (
	// Modern is protocol 2026-07-28: the server answers a call with an
	// input_required result holding its questions and a requestState, and
	// the client calls again with the answers (multi round-trip requests),
	// each time a round.
	Modern Era = "2026-07-28"
	// Legacy is protocol 2025-11-25: the server asks with
	// elicitation/create requests while the call waits, all within the
	// call's one round.
	Legacy Era = "2025-11-25"
)

// Eras returns both eras, the newest first.
func Eras() []Era { return []Era{Modern, Legacy} }

// Runner is what runs subtests: *testing.T is one (T is then *testing.T),
// and so is *testing.B.
type Runner[T any] interface {
	testing.TB
	Run(name string, f func(t T)) bool
}

// EachEra runs f as a subtest for each era, named by its version
// (TestDeploy/2026-07-28, TestDeploy/2025-11-25): a test, or each case of
// a table test, once per era.
func EachEra[T Runner[T]](t T, f func(t T, era Era)) {
	t.Helper()
	for _, era := range Eras() {
		t.Run(string(era), func(t T) { f(t, era) })
	}
}

// Target is the server a test reaches: made by [Server], [Command] or
// [URL].
type Target struct {
	server  *mcp.Server
	command string
	url     string
	more    []string // a command's environment, a URL's headers
}

// Server reaches s in memory, through the go-sdk's in-memory transports:
// every session (a client, each script, each probe of an audit) is one
// more connection to s, whose server session ends when the test's session
// does.
func Server(s *mcp.Server) Target { return Target{server: s} }

// Command starts the stdio server command line (run by /bin/sh; cmd.exe on
// Windows) for every session, with env ("NAME=value") added to its
// environment; closing the session ends the process and whatever it
// started.
func Command(line string, env ...string) Target { return Target{command: line, more: env} }

// URL reaches a Streamable HTTP server at url, sending headers ("Name:
// value") with every request.
func URL(url string, headers ...string) Target { return Target{url: url, more: headers} }

// String names the target in messages.
func (tg Target) String() string {
	switch {
	case tg.server != nil:
		return "the in-memory server"
	case tg.command != "":
		return fmt.Sprintf("command %q", tg.command)
	case tg.url != "":
		return tg.url
	}
	return "no server (the zero Target)"
}

// target is how the session reaches tg; sessions of an in-memory server
// are kept by tr, which checks that they end.
func (tg Target) target(tr *tracker) (*target.Target, error) {
	switch {
	case tg.server != nil:
		srv := tg.server
		return &target.Target{Dial: func() (mcp.Transport, func(), error) {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), st, nil)
			if err != nil {
				return nil, nil, err
			}
			return ct, tr.serving(ss), nil
		}}, nil
	case tg.command != "":
		return &target.Target{Command: tg.command, Env: tg.more}, nil
	case tg.url != "":
		t := &target.Target{URL: tg.url, Headers: tg.more, Transport: target.TransportStreamable, Name: targetOptionName}
		return t, t.Validate()
	}
	return nil, fmt.Errorf("asktest: no server: make the Target with asktest.Server, Command or URL")
}

// targetOptionName names a field of the session's target as the asktest
// function that gives it.
func targetOptionName(o target.Option) string {
	switch o {
	case target.OptionURL:
		return "asktest.URL"
	}
	return ""
}

// Options say how a test's client speaks to the server. The zero value
// (or nil) speaks the newest protocol both know, declares form and URL
// elicitation and the tasks extension, and no sampling or roots.
type Options struct {
	// Era is the protocol version to speak; empty: the newest both know.
	// A server that does not speak it fails the test.
	Era Era
	// NoElicitation declares that nothing may be asked; FormsOnly declares
	// form mode and not URL mode.
	NoElicitation, FormsOnly bool
	// Sampling declares sampling (sampling/createMessage, deprecated as of
	// 2026-07-28): the server may ask for a model reply, which a [Reply]
	// or an [AnswerFunc] gives.
	Sampling bool
	// Roots, when not nil, declares roots and answers roots/list with them
	// (URIs such as file:///work/repo; deprecated as of 2026-07-28).
	Roots []string
	// MaxRounds bounds the rounds of one call; zero means 10. A server
	// that still asks after it fails the test.
	MaxRounds int
	// TaskSleep, if set, waits between two polls of a task the server runs
	// a call as (the tasks extension): a test's clock. Nil waits for the
	// interval the server suggests, on the clock of the test (fake inside
	// a testing/synctest bubble).
	TaskSleep func(ctx context.Context, d time.Duration) error
}

// sessionTo returns the session options of a test's client of tg, and
// the tracker of what its sessions start; what it cannot make fails the
// test.
func (o *Options) sessionTo(tb testing.TB, tg Target) (*tracker, session.Options) {
	tb.Helper()
	tr := &tracker{}
	t, err := tg.target(tr)
	if err != nil {
		tb.Fatal(err)
	}
	so, err := o.session(tb, t)
	if err != nil {
		tb.Fatal(err)
	}
	return tr, so
}

// session returns the session options of a test's client of t.
func (o *Options) session(tb testing.TB, t *target.Target) (session.Options, error) {
	if o == nil {
		o = &Options{}
	}
	if err := checkEra(o.Era); err != nil {
		return session.Options{}, err
	}
	so := session.Options{
		Target:        t,
		Protocol:      string(o.Era),
		Capabilities:  session.Capabilities{Form: !o.NoElicitation, URL: !o.NoElicitation && !o.FormsOnly},
		Validate:      true,
		Tasks:         true,
		Hint:          optionHint,
		MaxRounds:     o.MaxRounds,
		ClientName:    "asktest",
		ClientVersion: "1",
		TaskSleep:     o.TaskSleep,
		Warn:          func(msg string) { tb.Logf("asktest: warning: %s", msg) },
	}
	so.DeclareSampling = o.Sampling // the replies come with each call
	if o.Roots != nil {
		so.Roots = []*mcp.Root{} //lint:ignore SA1019 roots are deprecated but still answered
		for _, r := range o.Roots {
			root, err := answer.ParseRoot(r)
			if err != nil {
				return so, fmt.Errorf("asktest: Options.Roots: %w", err)
			}
			so.Roots = append(so.Roots, root)
		}
	}
	return so, nil
}

// strictHint ends the message of a question nobody answered.
const strictHint = "give the call an answer for it (asktest.Accept, Decline, Cancel, OpenURL, Reply) or an asktest.AnswerFunc"

// leftWithin is how long what a test started may take to end once it is
// closed before the test fails for it: only something that does not end
// (a handler that ignores its context) waits that long.
const leftWithin = 10 * time.Second

// testContext is the context of what a test does: ended when the test
// ends, and a little before the deadline of go test -timeout, so that a
// call that hangs fails naming itself instead of ending the test binary.
func testContext(tb testing.TB) (context.Context, context.CancelFunc) {
	ctx := tb.Context()
	if d, ok := deadline(tb); ok {
		return context.WithDeadline(ctx, d.Add(-time.Until(d)/20))
	}
	return context.WithCancel(ctx)
}

// deadline is the test's deadline. A test in a testing/synctest bubble
// has none (its clock is fake: Deadline panics there); nor does a TB
// without Deadline.
func deadline(tb testing.TB) (d time.Time, ok bool) {
	t, has := tb.(interface{ Deadline() (time.Time, bool) })
	if !has {
		return time.Time{}, false
	}
	defer func() {
		if recover() != nil {
			d, ok = time.Time{}, false
		}
	}()
	return t.Deadline()
}

// tracker keeps what a test started: the server sessions of an in-memory
// server and the calls in flight, so that the test fails when one is still
// running after the test closed it.
type tracker struct {
	mu       sync.Mutex
	sessions []chan struct{} // each closed when its server session has ended
	calls    map[*flight]struct{}
}

// flight is one call in progress.
type flight struct {
	label string
	done  chan struct{}
}

// serving keeps ss and returns what ends it: closing it, in the
// background (a handler that does not return would block the close).
func (tr *tracker) serving(ss *mcp.ServerSession) func() {
	done := make(chan struct{})
	tr.mu.Lock()
	tr.sessions = append(tr.sessions, done)
	tr.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			go func() {
				ss.Close()
				_ = ss.Wait()
				close(done)
			}()
		})
	}
}

// start notes a call in flight; the func it returns notes its end.
func (tr *tracker) start(label string) func() {
	f := &flight{label: label, done: make(chan struct{})}
	tr.mu.Lock()
	if tr.calls == nil {
		tr.calls = map[*flight]struct{}{}
	}
	tr.calls[f] = struct{}{}
	tr.mu.Unlock()
	return func() {
		tr.mu.Lock()
		delete(tr.calls, f)
		tr.mu.Unlock()
		close(f.done)
	}
}

// left waits, up to leftWithin in all, for the server sessions and the
// calls to end, and says what is still running.
func (tr *tracker) left() []string {
	tr.mu.Lock()
	serving := append([]chan struct{}(nil), tr.sessions...)
	var calls []*flight
	for f := range tr.calls {
		calls = append(calls, f)
	}
	tr.mu.Unlock()
	timer := time.NewTimer(leftWithin)
	defer timer.Stop()
	expired := false
	ended := func(done chan struct{}) bool {
		if !expired {
			select {
			case <-done:
				return true
			case <-timer.C:
				expired = true
			}
		}
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	var out []string
	running := 0
	for _, done := range serving {
		if !ended(done) {
			running++
		}
	}
	if running > 0 {
		out = append(out, fmt.Sprintf("%d session(s) of the in-memory server still running %s after the test closed them: a handler did not return (does it ignore its context's cancellation?)", running, leftWithin))
	}
	for _, f := range calls {
		if !ended(f.done) {
			out = append(out, fmt.Sprintf("%s still running %s after the test ended (called from a goroutine the test did not wait for?)", f.label, leftWithin))
		}
	}
	return out
}

// optionHint words the way on that a session's error points at as
// asktest's options (session.Options.Hint).
func optionHint(s session.Setting, value string) string {
	switch s {
	case session.SettingSampling:
		return "set Options.Sampling and give the call an asktest.Reply"
	case session.SettingSampleReplies:
		return "give the call one more asktest.Reply"
	case session.SettingRoots:
		return "set Options.Roots"
	case session.SettingProtocol:
		if value != "" {
			return "give Options.Era " + value
		}
		return "leave Options.Era empty"
	case session.SettingMaxRounds:
		return "raise Options.MaxRounds if this is intended"
	case session.SettingTasks:
		return "asktest always declares tasks"
	case session.SettingValidate:
		return "give an answer that fits the form"
	}
	return ""
}

// checkEra refuses an Era the tester does not speak.
func checkEra(e Era) error {
	if session.CheckProtocol(string(e)) != nil {
		return fmt.Errorf("asktest: Options.Era %q: this tester speaks %v", string(e), mcp.SupportedProtocolVersions())
	}
	return nil
}
