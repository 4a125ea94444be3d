package audit

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/platform/sleep"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// question is one question the server asked, where it was seen.
type question struct {
	key    string
	params *mcp.ElicitParams
	ex     *exchange // the response that carried it; nil for server requests
	probe  string    // which probe saw it
}

// sent is what one round sent besides the arguments.
type sent struct {
	responses mcp.InputResponseMap
	state     string
}

// flowResult is a call driven over several rounds.
type flowResult struct {
	rounds    []outcome
	sent      []sent
	questions []question
	// undeclared lists what the server asked that no probe declares:
	// sampling or roots requests.
	undeclared []string
	endless    bool // still asking when the bound was reached
}

func (f *flowResult) last() outcome {
	if len(f.rounds) == 0 {
		return outcome{}
	}
	return f.rounds[len(f.rounds)-1]
}

// completes reports whether the call ended in a normal result.
func (f *flowResult) completes() bool { return f.last().kind == kComplete }

// answerFunc answers the questions of one round.
type answerFunc func(mcp.InputRequestMap) mcp.InputResponseMap

// flow sends rounds of s on probe p, answering with ans, until the server
// gives anything but input_required or maxSends requests were sent.
// A round with no questions (the server is busy) is repeated after a short
// pause, at most three times in a row. A -32042 error carrying URL
// questions (2025-11-25) is followed by a repeat of the call when retryURL
// is set, as a client whose user opened the links would do.
func (a *auditor) flow(ctx context.Context, p *probe, s *subject, args map[string]any, ans answerFunc, maxSends int, retryURL bool, name string) *flowResult {
	f := &flowResult{}
	var responses mcp.InputResponseMap
	state := ""
	busy := 0
	for range maxSends {
		o := a.send(ctx, p, s, args, responses, state)
		f.rounds = append(f.rounds, o)
		f.sent = append(f.sent, sent{responses, state})
		f.record(o, name, p.extra)
		if o.keptAsking {
			f.endless = true
			return f
		}
		if o.kind == kRPCError && len(o.urlError) > 0 && retryURL {
			responses, state = nil, ""
			continue
		}
		if o.kind != kInputRequired {
			return f
		}
		if len(o.requests) == 0 {
			busy++
			if !pauseBusy(ctx, busy) {
				return f
			}
			responses, state = nil, o.state
			continue
		}
		busy = 0
		responses, state = p.extra.fill(ctx, o.requests, ans(o.requests)), o.state
	}
	last := f.last()
	f.endless = last.kind == kInputRequired || last.kind == kRPCError && len(last.urlError) > 0
	return f
}

// pauseBusy waits before the round is repeated after busy rounds in a
// row without questions, longer each time; it reports false, not
// waiting, after the third, or when ctx ends.
func pauseBusy(ctx context.Context, busy int) bool {
	if busy >= 3 {
		return false
	}
	return sleep.For(ctx, time.Duration(busy)*100*time.Millisecond) == nil
}

func (f *flowResult) record(o outcome, probe string, answered *extraAnswers) {
	keys := make([]string, 0, len(o.requests))
	for k := range o.requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch r := o.requests[k].(type) {
		case *mcp.ElicitParams:
			if r != nil {
				f.questions = append(f.questions, question{key: k, params: r, ex: o.ex, probe: probe})
			}
		default:
			if !answered.answers(requestKind(r)) {
				f.undeclared = append(f.undeclared, requestKind(r)+" (key "+k+")")
			}
		}
	}
	for _, q := range o.asked {
		f.questions = append(f.questions, question{params: q, probe: probe})
	}
	for _, q := range o.urlError {
		f.questions = append(f.questions, question{key: q.ElicitationID, params: q, ex: o.ex, probe: probe})
	}
	f.undeclared = append(f.undeclared, o.others...)
}

// withProbe runs fn on a session with caps against t (the target when
// nil). Sessions are kept and reused by later probes with the same
// capabilities and target: every round of a 2026-07-28 call stands on its
// own, so one connection serves many probes. A session whose connection
// broke is dropped and the next probe opens a fresh one.
func (a *auditor) withProbe(ctx context.Context, caps capSet, t *target.Target, fn func(p *probe)) error {
	if t == nil {
		t = a.opts.Target
	}
	key := poolKey{caps, t}
	p := a.pool[key]
	if p == nil {
		var err error
		if p, err = a.open(ctx, caps, t); err != nil {
			return err
		}
		if a.pool == nil {
			a.pool = map[poolKey]*probe{}
		}
		a.pool[key] = p
	}
	fn(p)
	if p.broken {
		p.close()
		delete(a.pool, key)
	}
	return nil
}

// poolKey identifies a reusable session.
type poolKey struct {
	caps   capSet
	target *target.Target
}

// closePool ends every kept session.
func (a *auditor) closePool() {
	for k, p := range a.pool {
		p.close()
		delete(a.pool, k)
	}
}

// pendingAt drives a call with accepted answers for sends rounds and
// returns the last answer, which must be input_required with questions,
// with the answers that the next round would send.
func (a *auditor) pendingAt(ctx context.Context, p *probe, s *subject, sends int) (outcome, mcp.InputResponseMap, bool) {
	p.setPolicy(acceptPolicy(a.opts.MaxRounds, nil))
	f := a.flow(ctx, p, s, s.args, acceptAll, sends, false, "")
	last := f.last()
	if len(f.rounds) != sends || last.kind != kInputRequired || len(last.requests) == 0 {
		return last, nil, false
	}
	return last, acceptAll(last.requests), true
}

// acceptPolicy answers server-initiated questions with accept and
// synthesized content; after max questions in one call it cancels and
// sets *endless.
func acceptPolicy(max int, endless *atomic.Bool) policy {
	return func(p *mcp.ElicitParams, n int) (*mcp.ElicitResult, error) {
		if n > max {
			if endless != nil {
				endless.Store(true)
			}
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if p.Mode == "url" {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: formAnswer(p)}, nil
	}
}

// actionPolicy answers every server-initiated question with action.
func actionPolicy(action string) policy {
	return func(*mcp.ElicitParams, int) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action}, nil
	}
}

// requestKind names a question that is not an elicitation. Sampling and
// roots are deprecated in 2026-07-28, and declared by the audit only when
// it is given answers for them (Options.Samples, Options.Roots).
func requestKind(r mcp.InputRequest) string {
	t := fmt.Sprintf("%T", r)
	switch {
	case strings.Contains(t, "CreateMessage"):
		return "sampling/createMessage"
	case strings.Contains(t, "ListRoots"):
		return "roots/list"
	}
	return t
}
