//lint:file-ignore SA1019 sampling and roots are deprecated but still asked of clients that declare them

package standin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/text/suggest"
	"github.com/askback/askback/reqstate"
	"github.com/askback/askback/subject"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modern is the first protocol version whose clients read input_required
// results themselves.
const modern = "2026-07-28"

// callState is what the requestState a stand-in seals holds: which
// exchange, which of its rounds, which attempt at it, and the keys asked.
type callState struct {
	X int      `json:"x"`
	R int      `json:"r"`
	A int      `json:"a"`
	K []string `json:"k"`
}

// track is what one request's handlers tell the middleware about it.
// Its fields change under Standin.mu: Report reads those of the calls in
// progress.
type track struct {
	x      *Exchange
	asked  bool // questions were asked
	final  bool // the recorded answer (or error) was given
	modern bool
}

// setTrack changes a track under the stand-in's lock.
func (s *Standin) setTrack(t *track, f func(t *track)) {
	s.mu.Lock()
	f(t)
	s.mu.Unlock()
	s.rep.tell() // the calls in progress are in the report
}

type trackKey struct{}

func trackOf(ctx context.Context) *track {
	t, _ := ctx.Value(trackKey{}).(*track)
	if t == nil {
		t = &track{}
	}
	return t
}

// turn is what a call's handler answers: questions and their state, or
// the exchange whose recorded answer ends the call.
type turn struct {
	questions mcp.InputRequestMap
	state     string
	x         *Exchange
}

// middleware injects faults, bounds the requests in progress, matches
// each request with the recording and answers lists and completions from
// it; calls go on to their handlers with the exchange they matched.
func (s *Standin) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if err := s.fault(ctx, method, nameOf(req)); err != nil {
			if ctx.Err() == nil {
				// The client made the call; a fault failed it.
				s.madeFaulted(method, req)
			}
			return nil, err
		}
		if s.answeredAside(method) {
			return s.answerAside(ctx, method, req, next)
		}
		client := subject.Share(ctx, "")
		if !s.inflight.enter(client) {
			err := rpcError(jsonrpc.CodeInternalError, nil,
				"mcp-tester serve: %s in progress already, the most it answers at once (for this client); try again when one has ended", plural(s.inflight.max, "request"))
			s.refusedOwn(label(method, nameOf(req)), 0, nil, err)
			return nil, err
		}
		defer s.inflight.leave(client)
		return s.answerMatched(ctx, client, method, req, next)
	}
}

// answeredAside reports whether the stand-in answers method aside from
// the recorded requests: initialize, server/discover and ping, and the
// tasks/* requests about the tasks it runs.
func (s *Standin) answeredAside(method string) bool {
	switch method {
	case "initialize", "server/discover", "ping":
		return true
	case "tasks/get", "tasks/cancel", tasks.MethodUpdate:
		return s.servesTasks()
	case "tasks/result", "tasks/list":
		return s.servesTasks2025()
	}
	return false
}

// answerAside answers a request answeredAside: with the go-sdk's answer,
// initialize's with the recorded capabilities of tasks of 2025-11-25 (and
// to a client of 2025-11-25, without the tasks extension offered for
// them to clients of 2026-07-28).
func (s *Standin) answerAside(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if method != "initialize" || err != nil {
		return res, err
	}
	if s.extFor2025 && !modernResult(res) {
		// The extension offered for the recorded tasks of 2025-11-25 is
		// for clients of 2026-07-28: an older client gets the recorded
		// server's capabilities.
		if res, err = withoutExtension(res, tasks.ExtensionID); err != nil {
			return nil, err
		}
	}
	if s.servesTasks2025() {
		return s.withTasks2025(res)
	}
	return res, err
}

// answerMatched answers a request of client with the recorded exchange its
// method and params match: a call goes on to its handler (or runs as a
// task of the stand-in's own), anything else gets the recorded answer; a
// request the recording does not hold gets an error naming the nearest.
func (s *Standin) answerMatched(ctx context.Context, client, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	key, err := requestKey(method, req)
	if err != nil {
		e := rpcError(jsonrpc.CodeInvalidParams, nil, "mcp-tester serve: the params of %s cannot be matched with a recorded request: %v", method, err)
		s.refusedOwn(label(method, nameOf(req)), s.script.firstLine(method, nameOf(req)), matchedParams(req), e)
		return nil, e
	}
	t := &track{}
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		t.modern = r.ProtocolVersion() >= modern
	}
	if isCall(method) && reqstate.RequestState(req) != "" {
		// A next round: its requestState says which exchange.
		return s.observe(context.WithValue(ctx, trackKey{}, t), method, nameOf(req), req, t, next)
	}
	recorded, as := s.script.recorded(method, key)
	if len(recorded) == 0 {
		if s.fallsThrough(method) {
			return next(ctx, method, req)
		}
		if method == "tools/call" && s.servesTasks2025() && !taskRequested(req) && !tasks.Declared(req) && s.script.requiresTask(nameOf(req)) {
			// The server refuses any call of it without a task, whatever
			// its arguments: so does the stand-in (untaskedRefusal). The
			// recording holds no such call.
			s.rep.problem(Problem{Kind: ProblemRefused, Request: label(method, nameOf(req)), Got: json.RawMessage(key),
				Detail: "the call asks for no task, and the tool runs only as one: the stand-in refused it, as the server does (the recording holds no call of it with these params)"})
			return s.script.untaskedRefusal(nameOf(req))
		}
		return nil, s.unmatched(method, nameOf(req), key)
	}
	if slices.Contains(listMethods, method) {
		// A list may depend on what the client declared: the recorded one
		// whose client declared the nearest.
		if caps, ok := requestClientCaps(req); ok {
			var which string
			recorded, which = capsNearest(recorded, caps)
			as += "\x00" + which
		}
	}
	t.x = s.take(method, as, recorded)
	s.rep.update(func(r *Report) { r.Requests++ })
	if res, started, err := s.startTask(req, client, method, t.x); started {
		return res, err
	}
	if isCall(method) {
		return s.observe(context.WithValue(ctx, trackKey{}, t), method, nameOf(req), req, t, next)
	}
	return s.recordedAnswer(ctx, method, req, t, next)
}

// startTask answers a tools/call the recording ran as a task (of either
// era) with a task of the stand-in's own, when the client asks for one: a
// task of 2025-11-25 for a client that sends params.task, a task of the
// tasks extension for one that declares the extension; and reports
// whether it did.
func (s *Standin) startTask(req mcp.Request, client, method string, x *Exchange) (mcp.Result, bool, error) {
	if method != "tools/call" {
		return nil, false, nil
	}
	switch {
	case x.Task != nil && taskRequested(req) && s.servesTasks2025():
		res, err := s.startTask2025(client, sessionID(req), x)
		return res, true, err
	case (x.ExtTask != nil || x.Task != nil) && tasks.Declared(req):
		// A recorded task of 2025-11-25 runs as the task of the extension
		// it amounts to (asExtTask).
		res, err := s.startExtTask(req, client, x)
		return res, true, err
	case x.Task != nil && s.servesTasks2025() && !taskRequested(req) && s.script.requiresTask(nameOf(req)):
		// The server refuses a call of it without a task: so does the
		// stand-in (untaskedRefusal), and the client did not make the
		// call as recorded.
		s.refusedUntasked(x)
		res, err := s.script.untaskedRefusal(nameOf(req))
		return res, true, err
	}
	return nil, false, nil
}

// sessionID is the id of the session a request came in (none over stdio).
func sessionID(req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return ss.ID()
	}
	return ""
}

// recordedAnswer is the answer to a request that is no call: the recorded
// one (a tools/list to a client of 2025-11-25 with each tool's recorded
// execution, when the stand-in runs that era's tasks), else the go-sdk's
// empty result.
func (s *Standin) recordedAnswer(ctx context.Context, method string, req mcp.Request, t *track, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := s.final(t.x)
	if res == nil && err == nil {
		return next(ctx, method, req) // a result the go-sdk makes: {}
	}
	if method == "tools/list" && err == nil && !t.modern && s.servesTasks2025() {
		return withExecution(res, t.x.Result) // which tools run as tasks
	}
	return res, err
}

// fallsThrough reports whether a method the recording never saw is
// answered by the go-sdk: the lists (from what is registered: derived, or
// empty) and the requests whose answer is empty.
func (s *Standin) fallsThrough(method string) bool {
	if len(s.script.Of(method)) > 0 {
		return false
	}
	return slices.Contains(listMethods, method) || method == "logging/setLevel" ||
		method == "resources/subscribe" || method == "resources/unsubscribe"
}

// observe runs a call and reports a call to a client of 2025-11-25 that
// failed while it was being asked: the go-sdk asked it, and its answer
// (or its going away) ended the call.
func (s *Standin) observe(ctx context.Context, method, name string, req mcp.Request, t *track, next mcp.MethodHandler) (mcp.Result, error) {
	s.mu.Lock()
	s.running[t] = label(method, name)
	s.mu.Unlock()
	res, err := next(ctx, method, req)
	s.mu.Lock()
	delete(s.running, t)
	failedAsking := err != nil && t.asked && !t.final && !t.modern && !errors.Is(err, errDropped)
	line := 0
	if t.x != nil {
		line = t.x.Line
	}
	s.mu.Unlock()
	s.rep.tell() // it is no longer in progress: a live report says so
	if failedAsking {
		if e := s.stdinEnd(); e != nil && (e.hasEnded() || e.interrupted()) {
			// The client's input ended while it was asked: its answer
			// could not come; or the stand-in was stopped meanwhile.
			lbl := label(method, name)
			e.claim(lbl)
			detail := inputEndedDetail(lbl) + " (it was asked a question, whose answer could no longer come)"
			if e.interrupted() {
				detail = e.cutDetail(lbl) + " (it was asked a question, and the client had not answered)"
			}
			s.rep.problem(Problem{Kind: ProblemUnanswered, Request: lbl, Line: line, Detail: detail})
			return res, err
		}
		kind, detail := s.failedWhileAsked(ctx, err)
		s.rep.problem(Problem{Kind: kind, Request: label(method, name), Line: line, Detail: detail})
	}
	return res, err
}

// stdinEnd is the stdio client's inputEnd (nil over HTTP).
func (s *Standin) stdinEnd() *inputEnd {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdin
}

// failedWhileAsked says why a call failed while the client was asked,
// in the report's words: it did not answer in time (unanswered, as while
// it was waiting), it left or cancelled, or err.
func (s *Standin) failedWhileAsked(ctx context.Context, err error) (kind, detail string) {
	s.mu.Lock()
	waited := s.questionTimeout
	s.mu.Unlock()
	switch {
	case ctx.Err() == nil && waited > 0 && errors.Is(err, context.DeadlineExceeded):
		// The toolkit's bound on a question (HTTP): the same entry as
		// while the client was being waited for, with how long.
		return ProblemUnanswered, fmt.Sprintf("the client was asked and did not answer within %v (it left mid-question?)", waited)
	case ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed):
		// In the report's words: the toolkit's error says how its wait ended.
		return ProblemAnswer, "the client left or cancelled the call while it was asked"
	}
	return ProblemAnswer, fmt.Sprintf("the call failed while the client was asked: %v", err)
}

// take returns the exchange that answers the next request of method and
// key: the recorded ones in order, then the last again. Those the
// recording holds an answer for come first; the others (cancelled, cut
// off) are served only when there is no other.
func (s *Standin) take(method, key string, recorded []*Exchange) *Exchange {
	var answered []*Exchange
	for _, x := range recorded {
		if x.Ended {
			answered = append(answered, x)
		}
	}
	if len(answered) > 0 {
		recorded = answered
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := method + "\x00" + key
	n := s.served[k]
	s.served[k] = n + 1
	return recorded[min(n, len(recorded)-1)]
}

// madeFaulted counts a request a fault answered (an error, a dropped
// connection) as made, as take counts one answered from the recording: the
// client made it, whatever the stand-in was told to do with it.
func (s *Standin) madeFaulted(method string, req mcp.Request) {
	key, err := requestKey(method, req)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served[method+"\x00"+key]++
}

// requestKey is the key req is matched with the recording by (matchKey of
// its params).
func requestKey(method string, req mcp.Request) (string, error) {
	var params json.RawMessage
	if p := req.GetParams(); p != nil {
		params, _ = json.Marshal(p)
	}
	return matchKey(method, params)
}

// final is the recorded answer of an exchange: its result, decoded
// afresh, or its error. An exchange the recording holds no answer for
// is an error that says why.
func (s *Standin) final(x *Exchange) (mcp.Result, error) {
	if x.Err != nil {
		e := *x.Err
		return nil, &e
	}
	if !x.Ended {
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: the recording holds no answer to %s (line %d): %s", x.Label(), x.Line, x.Unended)
	}
	res, err := decodeResult(x.Method, x.Result)
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: the recorded result of %s (line %d): %v", x.Label(), x.ResultLine, err)
	}
	return res, nil
}

// call is the handler of tools/call, prompts/get and resources/read: a
// first request asks the exchange's first round (or answers); a request
// with a requestState opens it, checks the answers to its round, asks
// again what was not answered, then asks the next round or answers.
func (s *Standin) call(ctx context.Context, req mcp.Request, method string) (turn, error) {
	t := trackOf(ctx)
	lbl := label(method, nameOf(req))
	if reqstate.RequestState(req) == "" {
		return s.firstRound(req, t, lbl)
	}
	st, x, err := s.openRound(ctx, req, t, lbl)
	if err != nil {
		return turn{}, err
	}
	missing := s.checkRound(x, st, responsesOf(req))
	if len(missing) > 0 {
		if st.A+1 >= MaxAttempts {
			detail := fmt.Sprintf("question %q was asked %d times and never answered", missing[0].Key, MaxAttempts)
			s.rep.problem(Problem{Kind: ProblemAnswer, Request: lbl, Line: x.Line, Key: missing[0].Key, Detail: detail})
			return turn{}, rpcError(jsonrpc.CodeInvalidParams, nil, "mcp-tester serve: %s", detail)
		}
		return s.ask(req, t, x, st.R, st.A+1, missing)
	}
	if st.R+1 < len(x.Rounds) {
		return s.ask(req, t, x, st.R+1, 0, x.Rounds[st.R+1].Questions)
	}
	s.setTrack(t, func(t *track) { t.final = true })
	return turn{x: x}, nil
}

// firstRound answers the first request of a call: the first round of the
// exchange it matched, or its recorded answer when the server asked
// nothing.
func (s *Standin) firstRound(req mcp.Request, t *track, lbl string) (turn, error) {
	x := t.x
	if x == nil {
		return turn{}, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: %s reached its handler unmatched", lbl)
	}
	if len(responsesOf(req)) > 0 {
		s.rep.note("%s: answers came without a requestState; it is asked afresh", lbl)
	}
	if len(x.Rounds) == 0 {
		s.setTrack(t, func(t *track) { t.final = true })
		return turn{x: x}, nil
	}
	return s.ask(req, t, x, 0, 0, x.Rounds[0].Questions)
}

// openRound opens the requestState of a next round (a refusal is
// reported, and the client gets the toolkit's neutral error) and returns
// it with the exchange it names, which the call's track then follows.
func (s *Standin) openRound(ctx context.Context, req mcp.Request, t *track, lbl string) (callState, *Exchange, error) {
	st, err := reqstate.Open[callState](ctx, s.codec, req)
	if err != nil {
		s.rep.problem(Problem{Kind: ProblemState, Request: lbl, Detail: "requestState refused: " + refusal(err)})
		return st, nil, reqstate.ClientError(err)
	}
	if st.X < 0 || st.X >= len(s.script.Exchanges) || st.R < 0 || st.R >= len(s.script.Exchanges[st.X].Rounds) {
		return st, nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: a requestState of its own names no recorded round")
	}
	x := s.script.Exchanges[st.X]
	s.setTrack(t, func(t *track) {
		t.x = x
		if t.modern {
			s.opened++
		}
	})
	return st, x, nil
}

// checkRound checks the answers to the questions st asked of x's round,
// and returns those that came unanswered.
func (s *Standin) checkRound(x *Exchange, st callState, responses mcp.InputResponseMap) []*Question {
	var missing []*Question
	for _, q := range x.Rounds[st.R].Questions {
		if !slices.Contains(st.K, q.Key) {
			continue
		}
		a, ok := responses[q.Key]
		if !ok || a == nil {
			missing = append(missing, q)
			continue
		}
		s.check(x, q, a)
	}
	return missing
}

// ask asks questions of round r of x, with a requestState of its own.
func (s *Standin) ask(req mcp.Request, t *track, x *Exchange, r, attempt int, qs []*Question) (turn, error) {
	m := make(mcp.InputRequestMap, len(qs))
	keys := make([]string, 0, len(qs))
	for _, q := range qs {
		ir, err := inputRequest(q)
		if err != nil {
			return turn{}, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: question %q (line %d): %v", q.Key, q.Line, err)
		}
		if !ask.Permits(req.(ask.Request), ir) {
			return turn{}, s.undeclared(req, x, q, ir)
		}
		m[q.Key] = ir
		keys = append(keys, q.Key)
	}
	state, err := s.codec.Issue(req, callState{X: x.Index, R: r, A: attempt, K: keys}, &reqstate.IssueOptions{SingleUse: true})
	if err != nil {
		return turn{}, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: sealing a requestState: %v", err)
	}
	s.setTrack(t, func(t *track) {
		t.asked = true
		if t.modern {
			s.asked++
		}
	})
	return turn{questions: m, state: state}, nil
}

// inputRequest is a recorded question as the go-sdk asks it.
func inputRequest(q *Question) (mcp.InputRequest, error) {
	params := q.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	raw, err := json.Marshal(map[string]any{"q": map[string]any{"method": q.Method, "params": params}})
	if err != nil {
		return nil, err
	}
	var m mcp.InputRequestMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if p, ok := m["q"].(*mcp.ElicitParams); ok && p.Mode != "" && p.Mode != "form" && p.Mode != "url" {
		return nil, fmt.Errorf("the elicitation's mode %q is neither form nor url: no client can be asked it", p.Mode)
	}
	return m["q"], nil
}

// undeclared refuses a call whose recorded question the client did not
// declare it can answer: the JSON-RPC error -32021 of a missing client
// capability, naming the question and what to declare.
func (s *Standin) undeclared(req mcp.Request, x *Exchange, q *Question, ir mcp.InputRequest) error {
	var need mcp.ClientCapabilities
	what := ""
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		if p.Mode == "url" {
			need.Elicitation = &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}
			what = "a URL-mode elicitation (declare elicitation.url)"
		} else {
			need.Elicitation = &mcp.ElicitationCapabilities{}
			what = "a form elicitation (declare elicitation)"
		}
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		need.Sampling = &mcp.SamplingCapabilities{}
		what = "a sampling request (declare sampling)"
	case *mcp.ListRootsParams:
		need.RootsV2 = &mcp.RootCapabilities{}
		what = "the client's roots (declare roots)"
	}
	detail := fmt.Sprintf("the recording asks question %q (line %d): %s, which this client did not declare it can answer", q.Key, q.Line, what)
	s.rep.problem(Problem{Kind: ProblemCapability, Request: x.Label(), Line: x.Line, Key: q.Key, Detail: detail})
	e := ask.MissingCapability(&need).(*jsonrpc.Error)
	e.Message = "mcp-tester serve: " + detail
	return e
}

// check checks one answer and reports a difference.
func (s *Standin) check(x *Exchange, q *Question, a mcp.InputResponse) {
	v := checkAnswer(s.opts.Answers, q, a)
	s.rep.update(func(r *Report) {
		r.Checked++
		if v.ok {
			r.Matched++
		}
	})
	if v.ok {
		return
	}
	s.rep.problem(Problem{Kind: ProblemAnswer, Request: x.Label(), Line: x.Line, Key: q.Key,
		Recorded: v.recorded, Got: v.got, Detail: v.detail})
}

// refusal says why reqstate refused a state, for the log (the client gets
// the neutral error).
func refusal(err error) string {
	switch {
	case errors.Is(err, reqstate.ErrReused):
		return "replayed (it was already used)"
	case errors.Is(err, reqstate.ErrExpired):
		return "expired"
	case errors.Is(err, reqstate.ErrOtherRequest):
		return "issued for another request (other arguments, tool or method)"
	case errors.Is(err, reqstate.ErrTampered):
		return "tampered (it fails verification)"
	case errors.Is(err, reqstate.ErrUnknownKey):
		return "sealed with a key this stand-in does not hold (another server's, or an earlier run's)"
	case errors.Is(err, reqstate.ErrTooLarge):
		return "too large"
	case errors.Is(err, reqstate.ErrClockSkew):
		return "issued in the future"
	case errors.Is(err, reqstate.ErrOtherUser):
		return "issued to another user"
	}
	return err.Error()
}

// maxShown bounds the params an error message shows.
const maxShown = 300

func shown(canon string) string {
	if len(canon) <= maxShown {
		return canon
	}
	cut := maxShown
	for cut > 0 && canon[cut]&0xC0 == 0x80 {
		cut--
	}
	return canon[:cut] + "…"
}

// unmatched is the error for a request the recording does not hold: it
// names the nearest recorded request (the same method, the nearest name,
// the params that differ least), and is reported.
func (s *Standin) unmatched(method, name, key string) error {
	lbl := label(method, name)
	all := s.script.Of(method)
	if len(all) == 0 {
		return s.unrecordedMethod(method, lbl, key)
	}
	var allow func(*Exchange) bool // the candidates: those of the name, else all
	detail := fmt.Sprintf("no recorded %s has these params: %s", method, shown(key))
	if slices.Contains(namedMethods, method) {
		detail, allow = s.unmatchedNamed(method, name, key, all)
	}
	best := s.nearestOf(method, key, allow)
	detail += fmt.Sprintf("; the nearest recorded is %s %s (line %d)", best.Method, shown(best.Key), best.Line)
	near := &Nearest{Method: best.Method, Params: json.RawMessage(best.Key), Line: best.Line}
	s.rep.problem(Problem{Kind: ProblemUnrecorded, Request: lbl, Got: json.RawMessage(key), Nearest: near, Detail: detail})
	return rpcError(jsonrpc.CodeInvalidParams, map[string]any{"nearest": near}, "mcp-tester serve: %s", detail)
}

// unrecordedMethod is the error, reported, for a request of a method the
// recording holds none of: it names the methods it holds.
func (s *Standin) unrecordedMethod(method, lbl, key string) error {
	detail := fmt.Sprintf("the recording holds no %s request; it holds %s", method, strings.Join(s.script.Methods(), ", "))
	if len(s.script.Exchanges) == 0 {
		detail = fmt.Sprintf("the recording holds no %s request; it holds no request at all", method)
	}
	s.rep.problem(Problem{Kind: ProblemUnrecorded, Request: lbl, Got: json.RawMessage(key), Detail: detail})
	// Invalid params, as the go-sdk answers an unknown tool: the go-sdk
	// writes its own message over one of method not found.
	return rpcError(jsonrpc.CodeInvalidParams, nil, "mcp-tester serve: %s", detail)
}

// unmatchedNamed says why a call naming name matched no recorded one of
// method (all): no call of the name (and the name meant, if one is
// near), or none with these params; and which recorded calls the nearest
// is sought among: those of the name (or the name meant), else all (nil).
func (s *Standin) unmatchedNamed(method, name, key string, all []*Exchange) (string, func(*Exchange) bool) {
	ofName := func(n string) func(*Exchange) bool { return func(x *Exchange) bool { return x.Name == n } }
	if slices.ContainsFunc(all, ofName(name)) {
		return fmt.Sprintf("no recorded %s has these params: %s", label(method, name), shown(key)), ofName(name)
	}
	what := map[string]string{"tools/call": "tool", "prompts/get": "prompt", "resources/read": "resource"}[method]
	detail := fmt.Sprintf("the recording has no %s of the %s %q", method, what, name)
	near, ok := suggest.Closest(name, s.called(method))
	if !ok {
		return detail, nil
	}
	detail += fmt.Sprintf(" (did you mean %q?)", near)
	if !slices.ContainsFunc(all, ofName(near)) {
		return detail, nil
	}
	return detail, ofName(near)
}

// fault applies the faults that name a request: delays, then an error or
// a dropped connection.
func (s *Standin) fault(ctx context.Context, method, name string) error {
	for _, f := range s.opts.Faults {
		if !f.applies(method, name) {
			continue
		}
		s.rep.fault(f, label(method, name))
		switch f.Kind {
		case FaultDelay:
			if e := s.stdinEnd(); e != nil {
				// Waiting for no one: the end of the input need not wait for it.
				e.sleep(1)
				defer e.sleep(-1)
			}
			timer := time.NewTimer(f.Delay)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			}
		case FaultError:
			return &jsonrpc.Error{Code: f.Code, Message: f.Message}
		case FaultDrop:
			s.mu.Lock()
			drop := s.drop
			s.mu.Unlock()
			if drop != nil {
				drop()
			}
			return errDropped
		}
	}
	return nil
}
