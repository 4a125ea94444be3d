package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/askback/askback/internal/text/runecut"
)

// Kinds of a Problem.
const (
	// ProblemAnswer: an answer differs from the recorded one (or, with
	// AnswersSchema, does not fit the question's schema), or the client
	// answered with an error, or not at all.
	ProblemAnswer = "answer"
	// ProblemState: a requestState came back tampered, expired, replayed
	// or for another request, and was refused.
	ProblemState = "state"
	// ProblemUnrecorded: a request the recording does not hold.
	ProblemUnrecorded = "unrecorded"
	// ProblemCapability: a recorded question the client did not declare
	// it can answer (sampling to a client without sampling, a form to a
	// client without elicitation).
	ProblemCapability = "capability"
	// ProblemUnanswered: questions asked that the client never came back
	// to answer (it left mid-question); over stdio, a request the
	// client's input ended before it was answered.
	ProblemUnanswered = "unanswered"
	// ProblemMissing: a recorded call (tools/call, prompts/get,
	// resources/read) the client did not make, or made fewer times than
	// recorded; or, when the recording holds no call, no request of the
	// recording made at all. A client that asked nothing did not do what
	// was recorded. Also the cancel of a task the recording's client
	// cancelled, which the client started and never cancelled.
	ProblemMissing = "missing"
	// ProblemRefused: a recorded call the stand-in answered with an error
	// the recording did not hold, as the server would have (a call of a
	// tool that runs only as a task, made without asking for one): the
	// client did not make it as recorded, and its recorded questions
	// were never asked. Also a request the stand-in refused on its own:
	// its tasks or its requests in progress at their bound, or params it
	// cannot match with the recording (keys that repeat or differ only in
	// letter case).
	ProblemRefused = "refused"
	// ProblemCancelled: the client cancelled a task the recording ran to
	// its end (the recording holds no cancel of it).
	ProblemCancelled = "cancelled"
)

// MaxProblems bounds the problems a report keeps; past it they are
// counted only.
const MaxProblems = 1000

// MaxValue bounds each value a problem keeps of what a client sent (its
// answer, its request's params and name) and its detail, in bytes: a
// longer one is cut, and says how much was left out (a JSON value then
// becomes a string: its start, then "… (N more bytes)"). So a report
// holds at most some MaxProblems × 4 × MaxValue bytes, however large the
// client's messages.
const MaxValue = 4096

// logValue bounds each value a problem's line on the log shows.
const logValue = 512

// cutJSON is v, or when longer than n bytes a JSON string of its start
// and how much was left out.
func cutJSON(v json.RawMessage, n int) json.RawMessage {
	if len(v) <= n {
		return v
	}
	b, err := json.Marshal(runecut.Clip(string(v), n))
	if err != nil {
		return nil
	}
	return b
}

// bounded is p with each value cut to MaxValue.
func (p Problem) bounded() Problem {
	p.Request = runecut.Clip(p.Request, MaxValue)
	p.Key = runecut.Clip(p.Key, MaxValue)
	p.Detail = runecut.Clip(p.Detail, MaxValue)
	p.Recorded = cutJSON(p.Recorded, MaxValue)
	p.Got = cutJSON(p.Got, MaxValue)
	if p.Nearest != nil {
		n := *p.Nearest
		n.Params = cutJSON(n.Params, MaxValue)
		p.Nearest = &n
	}
	return p
}

// Problem is one way the client differed from the recording.
type Problem struct {
	Kind string `json:"kind"`
	// Request names the request: "tools/call deploy".
	Request string `json:"request"`
	// Line is the recording's line of the request (0 when unrecorded).
	Line int `json:"line,omitempty"`
	// Key is the question's key (answers).
	Key string `json:"key,omitempty"`
	// Recorded and Got are what the recording holds and what the client
	// sent (answers; Got alone for an unrecorded request's params).
	Recorded json.RawMessage `json:"recorded,omitempty"`
	Got      json.RawMessage `json:"got,omitempty"`
	// Nearest is the nearest recorded request, for an unrecorded one.
	Nearest *Nearest `json:"nearest,omitempty"`
	// Detail says what is wrong, in words.
	Detail string `json:"detail"`
}

// Nearest is the recorded request nearest to one the recording does not
// hold.
type Nearest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Line   int             `json:"line"`
}

// Report is what a stand-in saw: how many requests it answered, the
// answers it checked, and every way the client differed from the
// recording.
type Report struct {
	Recording string `json:"recording"`
	// Answers is AnswersExact or AnswersSchema.
	Answers string `json:"answers"`
	// Requests counts the requests answered from the recording.
	Requests int `json:"requests"`
	// Checked and Matched count the answers checked and those that
	// matched.
	Checked int `json:"answersChecked"`
	Matched int `json:"answersMatched"`
	// Faults counts the requests each --fault hit, by spec.
	Faults map[string]int `json:"faults,omitempty"`
	// Problems are the differences, in the order they happened (at most
	// MaxProblems); Dropped counts those past it.
	Problems []Problem `json:"problems"`
	Dropped  int       `json:"problemsDropped,omitempty"`
	// OK: no problem at all: the client made every recorded call, and
	// did as recorded (the exit code is 0 then, 1 otherwise; 130 when
	// Interrupted).
	OK bool `json:"ok"`
	// Interrupted: over stdio, the stand-in was stopped by a signal
	// before the client's input ended; what the client had not done by
	// then is in Problems.
	Interrupted bool `json:"interrupted,omitempty"`
	// Ended: the stand-in has ended and the report is complete; while it
	// serves, a report says what happened so far.
	Ended bool `json:"ended"`
}

// reporter collects a report and writes each problem as a line to log.
type reporter struct {
	mu  sync.Mutex
	r   Report
	log io.Writer
	// changed, if set, is called after each change, without the lock.
	changed func()
}

func (rp *reporter) tell() {
	if rp.changed != nil {
		rp.changed()
	}
}

// add adds ps to the report's problems, each bounded, as far as
// MaxProblems allows, and counts the rest in Dropped, as reporter.problem
// does with each problem as it happens.
func (r *Report) add(ps []Problem) {
	n := min(len(ps), max(0, MaxProblems-len(r.Problems)))
	for _, p := range ps[:n] {
		r.Problems = append(r.Problems, p.bounded())
	}
	r.Dropped += len(ps) - n
}

func (rp *reporter) problem(p Problem) {
	defer rp.tell()
	p = p.bounded()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if len(rp.r.Problems) < MaxProblems {
		rp.r.Problems = append(rp.r.Problems, p)
	} else {
		rp.r.Dropped++
	}
	rp.sayLocked(p)
}

// say writes problem p as a line on the log, without reporting it.
func (rp *reporter) say(p Problem) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.sayLocked(p)
}

func (rp *reporter) sayLocked(p Problem) {
	where := p.Request
	if p.Line > 0 {
		where = fmt.Sprintf("%s (line %d)", p.Request, p.Line)
	}
	if p.Key != "" {
		where += fmt.Sprintf(", question %q", p.Key)
	}
	detail := p.Detail
	if p.Kind == ProblemAnswer && len(p.Recorded) > 0 && len(p.Got) > 0 {
		// The values compared, which the detail does not repeat.
		detail += fmt.Sprintf(": recorded %s, got %s", runecut.Clip(string(p.Recorded), logValue), runecut.Clip(string(p.Got), logValue))
	}
	fmt.Fprintf(rp.log, "mcp-tester serve: %s: %s: %s\n", p.Kind, runecut.Clip(where, logValue), detail)
}

// fault counts a fault applied to a request and says so.
func (rp *reporter) fault(f Fault, request string) {
	defer rp.tell()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.r.Faults == nil {
		rp.r.Faults = map[string]int{}
	}
	rp.r.Faults[f.Spec]++
	what := map[FaultKind]string{FaultDelay: "delayed by " + f.Delay.String(), FaultError: fmt.Sprintf("answered with the error %d", f.Code),
		FaultDrop: "dropped its connection, unanswered"}[f.Kind]
	fmt.Fprintf(rp.log, "mcp-tester serve: fault %q: %s %s\n", f.Spec, request, what)
}

func (rp *reporter) note(format string, args ...any) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	fmt.Fprintf(rp.log, "mcp-tester serve: "+format+"\n", args...)
}

func (rp *reporter) update(f func(r *Report)) {
	defer rp.tell()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	f(&rp.r)
}

func (rp *reporter) snapshot() Report {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	r := rp.r
	r.Problems = append([]Problem(nil), rp.r.Problems...)
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
	if rp.r.Faults != nil {
		r.Faults = make(map[string]int, len(rp.r.Faults))
		for k, v := range rp.r.Faults {
			r.Faults[k] = v
		}
	}
	r.OK = len(r.Problems) == 0 && r.Dropped == 0
	return r
}
