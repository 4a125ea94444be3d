//lint:file-ignore SA1019 sampling and roots are deprecated but a server may still ask for them; the tester names them in its error.

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/platform/sleep"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is the outcome of a call that may have asked questions.
type Call struct {
	Rounds    int              // requests sent, from 1
	Questions []exchange.Entry // the questions asked during the call, in order
	// Task is the last state seen of the task the server ran the call as,
	// nil when it answered directly.
	Task *taskclient.Update
}

// MaxRoundQuestions bounds the questions one round may ask: the entries of
// one input_required result's inputRequests, or the questions of one
// URL-required (-32042) error. A form round asks a handful; the protocol
// sets no bound, but every question is asked, answered, printed and kept
// with the call, so a server could otherwise fill memory and the output
// with one message. A round that asks more is refused before any of its
// questions is asked. With MaxRounds (10 by default) this also bounds the
// questions one call keeps.
const MaxRoundQuestions = taskclient.MaxQuestions

// tooManyQuestions refuses a round of n questions past MaxRoundQuestions.
func tooManyQuestions(op string, n int, where string) *Error {
	return protocolErr(op, "the server asks %d questions in one round (%s); the tester answers at most %d a round; stopped", n, where, MaxRoundQuestions)
}

// reply is one round's answer from the server, whatever the method.
type reply struct {
	needsInput bool
	requests   mcp.InputRequestMap
	state      string
}

// sendFunc sends one round of a call with the given answers and state.
type sendFunc func(ctx context.Context, responses mcp.InputResponseMap, state string) (reply, error)

// CallTool calls a tool and answers its questions. ans answers them; nil
// means the session's answerer.
func (s *Session) CallTool(ctx context.Context, name string, args any, ans answer.Answerer) (*mcp.CallToolResult, *Call, error) {
	return s.CallToolWith(ctx, name, args, ans, CallOptions{})
}

// CallToolWith is CallTool with options of the call's own: whether it asks
// to run as a task (CallOptions.Task).
func (s *Session) CallToolWith(ctx context.Context, name string, args any, ans answer.Answerer, opts CallOptions) (*mcp.CallToolResult, *Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	if ans == nil {
		ans = s.opts.Answerer
	}
	s.knowTools(ctx, name)
	through, asTask, err := s.taskRule(ctx, name, opts.Task)
	if err != nil {
		return nil, &Call{}, err
	}
	s.results.take()
	s.results.takeHandle()
	var res *mcp.CallToolResult
	var task *taskclient.Update
	call, err := s.drive(ctx, "tools/call", name, ans, func(ctx context.Context, r mcp.InputResponseMap, st string) (reply, error) {
		var err error
		params := &mcp.CallToolParams{Name: name, Arguments: args, InputResponses: r, RequestState: st}
		s.progressToken(params, name)
		if through {
			res, err = s.taskClientAs(name, ans, func(u taskclient.Update) { task = &u }, asTask).CallTool(ctx, params)
			if err != nil && task != nil {
				s.cancelRefused(ctx, fmt.Sprintf("tools/call %q", name), task)
			}
		} else {
			res, err = s.cs.CallTool(ctx, params)
		}
		if err != nil {
			return reply{}, err
		}
		return reply{res.NeedsInput(), res.InputRequests, res.RequestState}, nil
	})
	call.Task = task
	if task != nil && errors.Is(err, taskclient.ErrCancelled) {
		call.Task.Status = "cancelled"
	}
	handle := s.results.takeHandle()
	empty := s.results.take()
	if err == nil && task == nil {
		err = s.hiddenResult(name, empty, handle)
	}
	return res, call, err
}

// cancelRefused cancels (tasks/cancel) the task of a call the tester
// stopped while the task asked (refuse, the request's context ending with
// a session *Error as its cause): ending the wait for its result would
// leave it to run on the server without the answer.
func (s *Session) cancelRefused(ctx context.Context, op string, task *taskclient.Update) {
	var e *Error
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &e) {
		return
	}
	switch task.Status {
	case "completed", "failed", "cancelled":
		return
	}
	if !errors.Is(e, errAskedTooOften) {
		// A call stopped by the bound refuses the later questions as
		// past it (endCall); any other stop, as a task cancelled.
		s.markCancelled(task.TaskID, op)
	}
	cctx, cancel := target.WithTimeout(context.WithoutCancel(ctx), s.opts.Timeout)
	defer cancel()
	if err := s.Tasks(nil).Cancel(cctx, task.TaskID); err != nil && s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf("task %s: it may still run on the server: %v", task.TaskID, err))
	}
}

// hiddenResult refuses the answer to a call of tool name that ran as no
// task when the go-sdk would show nothing of it: a result without content
// (empty), or a task handle no task was asked for (handle).
func (s *Session) hiddenResult(name string, empty, handle bool) error {
	if empty && !handle {
		// The go-sdk reads null, or a result without content, as empty
		// content: nothing the tool said would be shown, and the call
		// would pass.
		return protocolErr(fmt.Sprintf("tools/call %q", name), "the server's result has no content (it sent a result of null, or one without \"content\")")
	}
	if handle {
		// A task handle to a call that asked for no task: the go-sdk reads
		// it as a result without content, and a client that does not run
		// tasks shows nothing.
		why := "the server does not offer the tasks extension"
		if !s.opts.Tasks {
			why = "it was not asked to (" + s.hint(SettingTasks, "") + ")"
		}
		return protocolErr(fmt.Sprintf("tools/call %q", name), "the server answered with a task handle (resultType \"task\") though no task was asked for (the tester did not declare the tasks extension: %s); nothing the tool did would be shown", why)
	}
	return nil
}

// taskClient drives a tool that may run as a task: its questions arrive
// while it waits in input_required and take the same path as any other
// (rules, answerer, defaults, validation, log); the person's time to answer
// does not count against the request's time limit.
func (s *Session) taskClient(name string, ans answer.Answerer, observe func(taskclient.Update)) *taskclient.Client {
	return s.taskClientAs(name, ans, observe, s.taskSupport)
}

// taskClientAs is taskClient with asTask saying which calls of protocol
// 2025-11-25 ask for a task.
func (s *Session) taskClientAs(name string, ans answer.Answerer, observe func(taskclient.Update), asTask func(string) bool) *taskclient.Client {
	onUpdate := s.opts.OnTask
	if observe != nil {
		onUpdate = func(u taskclient.Update) {
			observe(u)
			if s.opts.OnTask != nil {
				s.opts.OnTask(u)
			}
		}
	}
	return taskclient.New(s.cs, &taskclient.Options{
		Answer: func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			c := s.getCall()
			round := 1
			if c != nil {
				round = c.round
				c.clock.pause()
				defer c.clock.resume()
			}
			return s.ask(ctx, exchange.ViaTask, callOf("tools/call", name), key, round, ans, p, nil)
		},
		OnUpdate: onUpdate,
		Sleep:    s.opts.TaskSleep,
		AsTask:   asTask,
	})
}

// StartTool calls a tool without waiting for a task it may start: it
// returns the direct result or the task handle (--no-wait). Questions of a
// direct result are answered as by CallTool.
func (s *Session) StartTool(ctx context.Context, name string, args any, ans answer.Answerer) (*taskclient.Started, *Call, error) {
	if !s.tasks && !s.asTask(ctx, name) {
		res, call, err := s.CallTool(ctx, name, args, ans)
		return &taskclient.Started{Result: res}, call, err
	}
	if args == nil {
		args = map[string]any{}
	}
	if ans == nil {
		ans = s.opts.Answerer
	}
	s.knowTools(ctx, name)
	var started *taskclient.Started
	call, err := s.drive(ctx, "tools/call", name, ans, func(ctx context.Context, r mcp.InputResponseMap, st string) (reply, error) {
		var err error
		started, err = s.taskClient(name, ans, nil).StartTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, InputResponses: r, RequestState: st})
		if err != nil || started.Result == nil {
			return reply{}, err
		}
		res := started.Result
		return reply{res.NeedsInput(), res.InputRequests, res.RequestState}, nil
	})
	return started, call, err
}

// Tasks returns a client for the tasks/* methods of this session, whose
// questions are answered by ans (nil: the session's answerer).
func (s *Session) Tasks(ans answer.Answerer) *taskclient.Client {
	if ans == nil {
		ans = s.opts.Answerer
	}
	return s.taskClient("", ans, nil)
}

// needTasks refuses a tasks/* request of a session that did not declare
// the tasks extension: nothing is sent.
func (s *Session) needTasks(op string) error {
	if s.opts.Tasks {
		return nil
	}
	return &Error{Kind: KindAnswer, Op: op, Err: s.hinted(errors.New("the tester did not declare the tasks extension (io.modelcontextprotocol/tasks) in this session, so it cannot ask about tasks"), SettingTasks, "")}
}

// GetTask asks the server for a task's state (tasks/get), within Timeout.
func (s *Session) GetTask(ctx context.Context, id string) (*tasks.GetTaskResult, error) {
	op := fmt.Sprintf("tasks/get %q", id)
	if err := s.needTasks(op); err != nil {
		return nil, err
	}
	rctx, cancel := target.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var res *tasks.GetTaskResult
	err := s.refuseRepeats(op, func() (err error) {
		res, err = s.Tasks(nil).Get(rctx, id)
		if err != nil {
			return s.wrap(rctx, op, rpcOr(err))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ListTasks asks the server for the tasks it holds for this session
// (tasks/list of protocol 2025-11-25, every page), within Timeout. The tasks
// extension of later protocols has no tasks/list, and a server that does
// not declare capabilities.tasks.list does not offer it: nothing is sent.
func (s *Session) ListTasks(ctx context.Context) ([]*tasks.GetTaskResult, error) {
	op := "tasks/list"
	if err := s.needTasks(op); err != nil {
		return nil, err
	}
	if !taskclient.Legacy(s.cs) {
		return nil, &Error{Kind: KindServer, Op: op, Err: s.hinted(fmt.Errorf("protocol %s has no tasks/list (it is a method of protocol 2025-11-25, for a server that speaks it)", s.ProtocolVersion()), SettingProtocol, "2025-11-25")}
	}
	if !s.offer.List {
		return nil, &Error{Kind: KindServer, Op: op, Err: errors.New("the server does not offer tasks/list (its capabilities have no tasks.list)")}
	}
	rctx, cancel := target.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var res []*tasks.GetTaskResult
	err := s.refuseRepeats(op, func() (err error) {
		res, err = s.Tasks(nil).List(rctx)
		if err != nil {
			return s.wrap(rctx, op, rpcOr(err))
		}
		return nil
	})
	return res, err
}

// CancelTask asks the server to cancel a task (tasks/cancel), within
// Timeout.
func (s *Session) CancelTask(ctx context.Context, id string) error {
	op := fmt.Sprintf("tasks/cancel %q", id)
	if err := s.needTasks(op); err != nil {
		return err
	}
	rctx, cancel := target.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	s.markCancelled(id, fmt.Sprintf("task %s", id))
	return s.refuseRepeats(op, func() error {
		return s.wrap(rctx, op, rpcOr(s.Tasks(nil).Cancel(rctx, id)))
	})
}

// rpcOr returns the JSON-RPC error inside err, if there is one, so that
// the message names the server's error once; err otherwise.
func rpcOr(err error) error {
	if w := RPCError(err); w != nil {
		return w
	}
	return err
}

// WaitTask waits for a task to end, answering its questions with ans (nil:
// the session's answerer) the way a call's are answered, and returns its
// result with the questions it asked.
func (s *Session) WaitTask(ctx context.Context, id string, ans answer.Answerer) (*mcp.CallToolResult, *Call, error) {
	op := fmt.Sprintf("tasks/get %q", id)
	if err := s.needTasks(op); err != nil {
		return nil, &Call{}, err
	}
	if ans == nil {
		ans = s.opts.Answerer
	}
	start := s.log.Len()
	call := &Call{Rounds: 1}
	var last *taskclient.Update
	var res *mcp.CallToolResult
	// The whole wait is bounded by Timeout, as a call that runs as a task
	// is (its clock paused while a person answers): a server that never
	// answers a poll, or keeps the task working, would hold it for hours.
	rctx, clock := s.startClock(ctx)
	defer clock.stop()
	wait := &callState{method: "tasks/get", name: id, round: 1, ans: ans, clock: clock, ctx: ctx}
	s.setCall(wait)
	defer s.endCall(wait)
	err := s.refuseRepeats(op, func() (err error) {
		res, err = s.taskClient("", ans, func(u taskclient.Update) { last = &u }).Wait(rctx, id)
		if err != nil && last != nil {
			s.cancelRefused(rctx, op, last)
		}
		return s.wrap(rctx, op, err)
	})
	call.Questions = s.log.Since(start)
	call.Task = last
	if err != nil {
		return nil, call, err
	}
	return res, call, nil
}

// GetPrompt gets a prompt and answers its questions.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string, ans answer.Answerer) (*mcp.GetPromptResult, *Call, error) {
	var res *mcp.GetPromptResult
	call, err := s.drive(ctx, "prompts/get", name, ans, func(ctx context.Context, r mcp.InputResponseMap, st string) (reply, error) {
		var err error
		res, err = s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args, InputResponses: r, RequestState: st})
		if err != nil {
			return reply{}, err
		}
		return reply{res.NeedsInput(), res.InputRequests, res.RequestState}, nil
	})
	return res, call, err
}

// ReadResource reads a resource and answers its questions.
func (s *Session) ReadResource(ctx context.Context, uri string, ans answer.Answerer) (*mcp.ReadResourceResult, *Call, error) {
	var res *mcp.ReadResourceResult
	call, err := s.drive(ctx, "resources/read", uri, ans, func(ctx context.Context, r mcp.InputResponseMap, st string) (reply, error) {
		var err error
		res, err = s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, InputResponses: r, RequestState: st})
		if err != nil {
			return reply{}, err
		}
		return reply{res.NeedsInput(), res.InputRequests, res.RequestState}, nil
	})
	return res, call, err
}

// drive runs the rounds of one call until the server gives a complete
// result, bounded by MaxRounds and, per request, by Timeout.
func (s *Session) drive(ctx context.Context, method, name string, ans answer.Answerer, send sendFunc) (*Call, error) {
	if ans == nil {
		ans = s.opts.Answerer
	}
	op := func() string { return fmt.Sprintf("%s %q", method, name) } // for errors: made only for one
	start := s.log.Len()
	call := &Call{}
	defer func() { call.Questions = s.log.Since(start) }()

	var responses mcp.InputResponseMap
	var state string
	emptyRounds := 0
	for round := 1; ; round++ {
		call.Rounds = round
		rctx, clock := s.startClock(ctx)
		cancel := clock.stop
		c := &callState{method: method, name: name, round: round, ans: ans, clock: clock, ctx: ctx}
		s.setCall(c)
		s.results.takeRepeated()
		rep, err := send(rctx, responses, state)
		s.endCall(c)
		if bad := s.untrustedRound(op, err); bad != nil {
			cancel()
			return call, bad
		}
		if err != nil {
			if qs := urlRequired(err); qs != nil && round < s.opts.MaxRounds {
				cancel()
				if len(qs) > MaxRoundQuestions {
					return call, tooManyQuestions(op(), len(qs), "the URL-required error's elicitations")
				}
				// 2025-11-25: answer the URL questions, then repeat the call.
				if err := s.answerURLError(ctx, method, name, round, ans, qs); err != nil {
					return call, err
				}
				responses, state = nil, ""
				continue
			}
			err = s.wrap(rctx, op(), err)
			cancel()
			return call, err
		}
		cancel()
		if !rep.needsInput {
			if len(rep.requests) > 0 && s.opts.Warn != nil {
				s.opts.Warn(fmt.Sprintf("%s: the result carries inputRequests but is not marked input_required (resultType); the questions were ignored", op()))
			}
			return call, nil
		}
		if len(rep.requests) > MaxRoundQuestions {
			return call, tooManyQuestions(op(), len(rep.requests), "inputRequests")
		}
		if round >= s.opts.MaxRounds {
			s.logPastBound(method, name, round, rep.requests)
			return call, &Error{Kind: KindProtocol, Op: op(), Err: s.hinted(fmt.Errorf("the server still asks after %s; stopped", rounds(round)), SettingMaxRounds, "")}
		}
		if len(rep.requests) == 0 {
			// Load shedding: the server asks to be called again later.
			emptyRounds++
			if err := s.waitBusy(ctx, op, emptyRounds); err != nil {
				return call, err
			}
			responses, state = nil, rep.state
			continue
		}
		responses, err = s.answerAll(ctx, method, name, round, ans, rep.requests)
		if err != nil {
			return call, err
		}
		state = rep.state
	}
}

// untrustedRound returns what makes a round's answer untrustworthy, err
// being the round's own error: a key twice, a second answer, an error met
// while answering a server-initiated request.
func (s *Session) untrustedRound(op func() string, err error) error {
	if dup := s.results.takeRepeated(); dup != nil && err == nil {
		return protocolErr(op(), "%w", dup)
	}
	if twice := s.results.takeTwice(); twice != nil {
		return protocolErr(op(), "%w", twice)
	}
	return s.takeLate()
}

// waitBusy waits before calling again a server that answered
// input_required with no questions the nth time in a row; it gives up at
// the third.
func (s *Session) waitBusy(ctx context.Context, op func() string, n int) error {
	if n >= 3 {
		return protocolErr(op(), "the server returned input_required with no questions %d times (busy); stopped", n)
	}
	if sleep.For(ctx, time.Duration(n)*100*time.Millisecond) != nil {
		return s.wrap(ctx, op(), ctx.Err())
	}
	return nil
}

// logPastBound logs the questions of the round that reached --max-rounds
// unanswered, in the order of their keys, with why; the server's words are
// bounded as every answer's are (the go-sdk read them whole).
func (s *Session) logPastBound(method, name string, round int, reqs mcp.InputRequestMap) {
	keys := make([]string, 0, len(reqs))
	for k, r := range reqs {
		if p, ok := r.(*mcp.ElicitParams); ok && p != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		s.log.Add(exchange.Entry{Method: method, Name: name, Via: exchange.ViaInputRequired, Key: key, Round: round, Server: s.server, Params: reqs[key].(*mcp.ElicitParams),
			Note: "not answered: past --max-rounds (" + rounds(s.opts.MaxRounds) + ")"})
	}
}

// answerAll answers the questions of one round in the order of their keys.
func (s *Session) answerAll(ctx context.Context, method, name string, round int, ans answer.Answerer, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	at := callOf(method, name)
	op := at.op
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	later := s.roundLater(op, round, keys, reqs)
	out := make(mcp.InputResponseMap, len(reqs))
	for _, key := range keys {
		var res mcp.InputResponse
		var err error
		switch p := reqs[key].(type) {
		case *mcp.ElicitParams:
			if p == nil {
				return nil, protocolErr(op, "question %q asks for nothing (the entry is empty)", key)
			}
			res, err = s.ask(ctx, exchange.ViaInputRequired, at, key, round, ans, p, later)
			later = nil
		case *mcp.CreateMessageWithToolsParams:
			res, err = s.sample(ctx, exchange.ViaInputRequired, at, key, round, ans, p)
		case *mcp.ListRootsParams:
			res, err = s.listRoots(exchange.ViaInputRequired, at, key, round)
		default:
			return nil, protocolErr(op, "question %q asks for %s, which the tester did not declare and cannot answer", key, describeRequest(reqs[key]))
		}
		if err != nil {
			return nil, err
		}
		out[key] = res
	}
	return out, nil
}

func describeRequest(r mcp.InputRequest) string {
	switch r.(type) {
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return "sampling (sampling/createMessage)"
	case *mcp.ListRootsParams:
		return "roots (roots/list)"
	case nil:
		return "nothing (the entry is empty)"
	}
	return fmt.Sprintf("%T", r)
}

// roundLater are the elicitations of a round (its keys in the order they
// are asked) after the first, as [answer.Question.Later] gives them to the
// first: none when the round asks fewer than two.
func (s *Session) roundLater(op string, round int, keys []string, reqs mcp.InputRequestMap) []*answer.Question {
	var later []*answer.Question
	first := true
	for _, key := range keys {
		p, ok := reqs[key].(*mcp.ElicitParams)
		if !ok || p == nil {
			continue
		}
		if first {
			first = false
			continue
		}
		q := &answer.Question{Key: key, Round: round, Via: exchange.ViaInputRequired, Server: s.server, Params: p}
		if s.checkQuestion(op, fmt.Sprintf("question %q", key), q) == nil {
			later = append(later, q)
		}
	}
	return later
}

// ask checks one question against the rules, gets its answer, prepares it
// and logs both; later are the round's elicitations after it when it is
// the first ([answer.Question.Later]).
func (s *Session) ask(ctx context.Context, via string, at origin, key string, round int, ans answer.Answerer, p *mcp.ElicitParams, later []*answer.Question) (*mcp.ElicitResult, error) {
	op := at.op
	label := fmt.Sprintf("question %q", key)
	if key == "" {
		label = fmt.Sprintf("question %q", p.Message)
	}
	q := &answer.Question{Key: key, Round: round, Via: via, Server: s.server, Params: p, Later: later}
	if err := s.checkQuestion(op, label, q); err != nil {
		return nil, err
	}
	began := time.Now()
	res, err := answerOrDecline(ctx, ans, q)
	e := exchange.Entry{Method: at.method, Name: at.name, Via: via, Key: key, Round: round, Server: s.server, Params: p}
	if end := ended(ctx); end != nil {
		// The call ended (an interrupt, a time limit) or the server
		// withdrew the question while it was asked: whatever the answerer
		// made of it then (input that ended with the interrupt, an answer
		// typed as it came) is no answer, and none is sent or logged.
		res, err = nil, unanswered(end)
	}
	if errors.Is(err, answer.ErrNoAnswer) {
		res, err, e.Note, e.NoAnswer = &mcp.ElicitResult{Action: "decline"}, nil, "no answer left: declined", true
	}
	if err == nil {
		res, err = answer.Finish(q, res, s.opts.Validate)
	}
	e.Elapsed = int64(time.Since(began))
	if err != nil {
		// The server asked, but no answer went back: the question stays in
		// the log (and in a failure's JSON document) with the reason.
		var invalid *answer.InvalidAnswerError
		if errors.As(err, &invalid) {
			err = s.hinted(err, SettingValidate, "")
		}
		e.Note, e.NoAnswer = "not answered: "+err.Error(), false
		s.log.Add(e)
		return nil, &Error{Kind: KindAnswer, Op: op, Err: err, Round: max(round, 1)}
	}
	e.Answer = res
	s.log.Add(e)
	return res, nil
}

// checkQuestion checks q against the rules of its mode and what the tester
// declared, and reads a form's schema into q.Form.
func (s *Session) checkQuestion(op, label string, q *answer.Question) error {
	p := q.Params
	switch q.Mode() {
	case "form":
		if s.opts.Capabilities.None() || !s.opts.Capabilities.Form {
			return protocolErr(op, "%s is a form, but the tester declared no form support", label)
		}
		if p.URL != "" {
			return protocolErr(op, "%s is a form but carries a url", label)
		}
		// As the server wrote it: its fields in the server's order.
		form, err := formschema.Parse(s.forms.written(p.RequestedSchema))
		if err != nil {
			if s.opts.Validate {
				return protocolErr(op, "%s: the requested schema is outside the form subset: %v", label, err)
			}
		} else {
			q.Form = form
		}
	case "url":
		if !s.opts.Capabilities.URL {
			return protocolErr(op, "%s is a URL question, but the tester declared no URL support", label)
		}
		if p.URL == "" {
			return protocolErr(op, "%s is a URL question without a url", label)
		}
	default:
		return protocolErr(op, "%s has unknown mode %q", label, p.Mode)
	}
	return nil
}

// unanswered is the reason a question whose context ctx ended got no
// answer: its cause when it has one of its own ("interrupt signal
// received").
func unanswered(ctx context.Context) error {
	if timedOut(ctx) {
		return errors.New("the time limit ran out while it was asked")
	}
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return fmt.Errorf("%w while it was asked", cause)
	}
	return errors.New("the request ended while it was asked")
}

func answerOrDecline(ctx context.Context, ans answer.Answerer, q *answer.Question) (*mcp.ElicitResult, error) {
	if ans == nil {
		return nil, answer.ErrNoAnswer
	}
	return ans.Answer(ctx, q)
}

// urlRequired returns the URL questions carried by a -32042 error.
func urlRequired(err error) []*mcp.ElicitParams {
	w := RPCError(err)
	if w == nil || w.Code != mcp.CodeURLElicitationRequired {
		return nil
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if len(w.Data) == 0 || json.Unmarshal(w.Data, &data) != nil || len(data.Elicitations) == 0 {
		return nil
	}
	return data.Elicitations
}

// answerURLError answers the URL questions of a -32042 error. Only when
// every one is accepted (the user opened the links) is the call repeated.
func (s *Session) answerURLError(ctx context.Context, method, name string, round int, ans answer.Answerer, qs []*mcp.ElicitParams) error {
	at := callOf(method, name)
	op := at.op
	for _, p := range qs {
		if p == nil {
			return protocolErr(op, "the URL-required error carries an empty question")
		}
		if p.Mode == "" {
			p.Mode = "url"
		}
		if p.Mode != "url" {
			return protocolErr(op, "the URL-required error carries a %q question; only URL questions are allowed there", p.Mode)
		}
		// Like every question of 2025-11-25 it has no key: messages name it
		// by its message, answers reach it by the matching rule.
		res, err := s.ask(ctx, exchange.ViaURLError, at, "", round, ans, p, nil)
		if err != nil {
			return err
		}
		if res.Action != "accept" {
			return &Error{Kind: KindServer, Op: op, Err: fmt.Errorf("the server requires a URL to be opened (%s), and the answer was %s", p.URL, res.Action)}
		}
	}
	return nil
}

// answerServerRequests is receiving middleware that answers a
// server-initiated elicitation/create, sampling/createMessage or roots/list
// itself, so that those questions take the same path (rules, answerer,
// defaults, validation, log) as the ones in inputRequests.
func (s *Session) answerServerRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "elicitation/create" && method != "sampling/createMessage" && method != "roots/list" {
			return next(ctx, method, req)
		}
		if id := relatedTask(req); id != "" {
			if op, first, ok := s.wasCancelled(id); ok {
				// A question about a task the tester cancelled belongs to
				// the call that ran it, which has ended: neither asked nor
				// shown, and no question of the call or the calls after it.
				if first && s.opts.Warn != nil {
					s.opts.Warn(fmt.Sprintf("%s: the server sent %s about task %s after the tester cancelled the task; refused, not shown%s", op, method, id, quotedMessage(req)))
				}
				return nil, &jsonrpc.Error{Code: codeRefused, Message: "the client cancelled the task this request is about"}
			}
		}
		c, at := s.asking()
		if err := s.countAsked(c, at); err != nil {
			s.countRefused(c, at)
			if s.isOver(c) {
				// A question after the call that the bound stopped: refused
				// as past that bound; that call has already said so, and the
				// calls after it are not its business.
				return nil, refusal(err)
			}
			// The server keeps asking: the call is stopped, as a call of
			// 2026-07-28 is after --max-rounds rounds. The question that
			// reached the bound is logged unanswered, with why; any later
			// one is not (a server that floods would fill the log).
			if p, ok := req.GetParams().(*mcp.ElicitParams); ok && p != nil && s.atBound(c) {
				s.log.Add(exchange.Entry{Method: at.method, Name: at.name, Via: exchange.ViaRequest, Round: c.round, Server: s.server, Params: p,
					Note: "not answered: past --max-rounds (" + rounds(s.opts.MaxRounds) + ")"})
			}
			return nil, s.refuse(c, err)
		}
		// The person's time to answer does not count against the request.
		c.clock.pause()
		defer c.clock.resume()
		own := ctx // the request's own context: the server's and the connection's
		ctx, stop := c.within(ctx)
		defer stop()
		var res mcp.Result
		var err error
		switch method {
		case "elicitation/create":
			p, _ := req.GetParams().(*mcp.ElicitParams)
			if p == nil {
				p = &mcp.ElicitParams{}
			}
			res, err = s.ask(ctx, exchange.ViaRequest, at, "", c.round, c.ans, p, nil)
		case "sampling/createMessage":
			p, _ := req.GetParams().(*mcp.CreateMessageWithToolsParams)
			res, err = s.sample(ctx, exchange.ViaSamplingRequest, at, "", c.round, c.ans, p)
		default:
			res, err = s.listRoots(exchange.ViaRootsRequest, at, "", c.round)
		}
		if err != nil {
			if c.stopped() {
				// The call was interrupted while the server asked: nothing
				// goes back, not even an error, once the session closes
				// (which the interrupted command does next); a server that
				// withdraws the question, or a connection that ends, ends
				// the wait sooner. The go-sdk responds to every request it
				// handed over, so a question withdrawn before the session
				// closed gets the refusal's fixed words (never the answer),
				// as the spec's cancellation allows: the server ignores it.
				s.setLate(err)
				select {
				case <-s.closing:
				case <-own.Done():
				}
				return nil, refusal(err)
			}
			return nil, s.refuse(c, err)
		}
		return res, nil
	}
}

// relatedTaskKey is the _meta key of a message about a task (protocol
// 2025-11-25).
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// relatedTask is the id of the task the server's request req is about
// (_meta[relatedTaskKey].taskId), "" when it names none.
func relatedTask(req mcp.Request) string {
	p := req.GetParams()
	// A request sent with no params holds a nil pointer of its params'
	// type (roots/list is most often sent so), whose GetMeta panics.
	if p == nil || reflect.ValueOf(p).IsNil() {
		return ""
	}
	m, _ := p.GetMeta()[relatedTaskKey].(map[string]any)
	id, _ := m["taskId"].(string)
	return id
}

// quotedMessage is `: "MESSAGE"` of an elicitation/create req, cut, or "".
func quotedMessage(req mcp.Request) string {
	p, ok := req.GetParams().(*mcp.ElicitParams)
	if !ok || p == nil || p.Message == "" {
		return ""
	}
	return fmt.Sprintf(": %q", runecut.Clip(p.Message, maxQuoted))
}

// maxQuoted bounds what a warning quotes of a server's question.
const maxQuoted = 200

// cancelledTask is a task the tester cancelled: the call it was about,
// and whether a later request of the server's about it was said.
type cancelledTask struct {
	op   string
	said bool
}

// maxCancelled bounds the cancelled tasks a session remembers.
const maxCancelled = 1024

// markCancelled notes that the tester cancels the task id, which the call
// op ran: the server's later requests about it are refused (wasCancelled).
func (s *Session) markCancelled(id, op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelled == nil {
		s.cancelled = map[string]*cancelledTask{}
	}
	if _, ok := s.cancelled[id]; ok {
		return
	}
	if len(s.cancelledOrder) == maxCancelled {
		delete(s.cancelled, s.cancelledOrder[0])
		s.cancelledOrder = s.cancelledOrder[1:]
	}
	s.cancelled[id] = &cancelledTask{op: op}
	s.cancelledOrder = append(s.cancelledOrder, id)
}

// wasCancelled reports whether the tester cancelled the task id, the call
// that ran it, and whether this is the first request about it since.
func (s *Session) wasCancelled(id string) (op string, first, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.cancelled[id]
	if t == nil {
		return "", false, false
	}
	first = !t.said
	t.said = true
	return t.op, first, true
}

// countAsked counts one more request the server sent during the call c
// (elicitation/create, sampling/createMessage, roots/list); the one that
// reaches MaxRounds is an error: a server of 2025-11-25 that asks again
// after every answer would be served for ever, each question kept.
func (s *Session) countAsked(c *callState, at origin) error {
	s.mu.Lock()
	c.asked++
	n := c.asked
	s.mu.Unlock()
	if n < s.opts.MaxRounds {
		return nil
	}
	return &Error{Kind: KindProtocol, Op: at.op, Err: s.hinted(fmt.Errorf("the server still asks after %s%w", rounds(n), errAskedTooOften), SettingMaxRounds, "")}
}

// countRefused counts a request of the server's that countAsked refused
// for c (at the bound or past it, none shown): sayRefused tells how many.
// The one that stopped a call is not counted: the call's error says so.
func (s *Session) countRefused(c *callState, at origin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.method != "" && c.asked == s.opts.MaxRounds {
		return
	}
	if c.refused == 0 {
		c.refusedAt = at.op
	}
	c.refused++
}

// sayRefused tells, in one line (Options.Warn), how many of the server's
// requests were refused against c past --max-rounds since it last said
// so: they were neither asked nor shown, so the questions shown may skip
// some the server numbered. Said when the call ends, when the questions
// between calls give way to a call, and when the session closes.
func (s *Session) sayRefused(c *callState) {
	if c == nil {
		return
	}
	s.mu.Lock()
	n, at, asked := c.refused, c.refusedAt, c.asked
	c.refused = 0
	s.mu.Unlock()
	if n == 0 || s.opts.Warn == nil {
		return
	}
	s.opts.Warn(fmt.Sprintf("%s: the server sent %d request(s) of its own (questions, sampling, roots); %d, past --max-rounds (%s), were refused and not shown", at, asked, n, rounds(s.opts.MaxRounds)))
}

// atBound reports whether the request countAsked just refused for the call
// c is the one that reached MaxRounds, not a later one.
func (s *Session) atBound(c *callState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.asked == s.opts.MaxRounds
}

// rounds is "1 round" or "N rounds".
func rounds(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}

// errAskedTooOften ends the message of a call stopped by countAsked.
var errAskedTooOften = errors.New("; stopped")

// origin is the request a question came in, as the log keeps it (method
// and name) and as messages name it (op).
type origin struct {
	method, name string
	op           string
}

// callOf is the origin of a question asked during the call of name with
// method: tools/call "deploy".
func callOf(method, name string) origin {
	return origin{method: method, name: name, op: fmt.Sprintf("%s %q", method, name)}
}

// asking returns the state a request the server sends now counts against
// and the request it came in: the call in progress, else the questions
// asked while no call is in progress (Session.idle), named by the request
// of the tester's that was waiting for its answer (tools/list, read
// before the call to check its arguments), else "between calls".
func (s *Session) asking() (*callState, origin) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return s.cur, callOf(s.cur.method, s.cur.name)
	}
	// One state for all of them until the next call, so that they are
	// bounded as a call's are.
	if s.idle == nil {
		s.idle = &callState{ans: s.opts.Answerer}
	}
	at := origin{method: "(between calls)", op: "between calls"}
	if n := len(s.sending); n > 0 {
		r := s.sending[n-1]
		at = origin{method: r.method, op: r.op}
	}
	return s.idle, at
}

// outside is a request of the tester's other than a call (a listing, a
// ping), in flight: the questions a server asks while it waits for the
// answer are named by it.
type outside struct {
	method, op string
}

// send marks the request op (its method, then what it names:
// `tools/call "x"`, tools/list) as in flight until done is called, for
// the questions asked meanwhile outside a call; the purpose ctx carries
// ([WithPurpose]) is added to how they name it.
func (s *Session) send(ctx context.Context, op string) (done func()) {
	method, _, _ := strings.Cut(op, " ")
	if why, _ := ctx.Value(purposeKey{}).(string); why != "" {
		op += " (" + why + ")"
	}
	r := &outside{method: method, op: op}
	s.mu.Lock()
	s.sending = append(s.sending, r)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sending = slices.DeleteFunc(s.sending, func(o *outside) bool { return o == r })
	}
}

// purposeKey is the key of the purpose WithPurpose gives a context.
type purposeKey struct{}

// WithPurpose returns ctx carrying why the tester makes the requests sent
// with it ("read before the call to check --args"): a question the server
// asks while one of them (other than a call) waits is named with it,
// tools/list (read before the call to check --args), in the messages of a
// call it ends.
func WithPurpose(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, purposeKey{}, why)
}

// refuse ends the call c, which the tester will not go on with: err, why
// (an answer refused, a question that breaks the rules, a server that
// keeps asking), becomes the call's error, and the server's request gets
// an error of fixed text. err's own text stays here: it may quote the
// answer that was refused (a secret typed into the wrong field), which
// the person was told is not sent. The call is cancelled before the
// server can go on without the answer (its notifications/cancelled
// races the error sent here; a server that then finishes the call is
// not waited for).
func (s *Session) refuse(c *callState, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindAnswer {
		e.Round = max(c.round, 1)
		e.Cancelled = c.clock != nil
	}
	s.setLate(err)
	c.clock.end(err)
	return refusal(err)
}

// codeRefused is the code of the error the tester answers a server's
// request with when it gives no answer: the code protocol 2025-11-25 gives
// a sampling request the user rejected, the one client-side refusal MCP
// names.
const codeRefused = -1

// refusal is what the server is told of a request the tester does not
// answer for the reason err: fixed words, never err's.
func refusal(err error) *jsonrpc.Error {
	if errors.Is(err, errAskedTooOften) {
		return &jsonrpc.Error{Code: codeRefused, Message: "the client stopped the request: the server asked too many times"}
	}
	if KindOf(err) == KindProtocol {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the client cannot answer this request: it breaks the protocol or asks for what the client did not declare"}
	}
	return &jsonrpc.Error{Code: codeRefused, Message: "the client did not answer this request"}
}

// within returns ctx, the context of a question the server asks in the
// middle of the call (its elicitation/create), ended also when the call's
// own context ends, with that context's cause; stop releases it. The
// call's context goes with it (see ended): the end reaches ctx a moment
// after, from another goroutine.
func (c *callState) within(ctx context.Context) (context.Context, func()) {
	if c.ctx == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, callKey{}, c.ctx))
	after := context.AfterFunc(c.ctx, func() { cancel(context.Cause(c.ctx)) })
	return ctx, func() {
		after()
		cancel(context.Canceled)
	}
}

// callKey is the key of the call's own context in a question's (within).
type callKey struct{}

// ended returns the context that ended the question asked within ctx: ctx,
// or the call's it was asked within; nil while neither has ended.
func ended(ctx context.Context) context.Context {
	// The call's first: an interrupt also ends the server's request (the
	// go-sdk cancels the call, the server withdraws its question), which
	// may reach ctx before the interrupt itself does.
	if call, ok := ctx.Value(callKey{}).(context.Context); ok && call.Err() != nil {
		return call
	}
	if ctx.Err() != nil {
		return ctx
	}
	return nil
}

// stopped reports whether the call ended otherwise than by a time limit:
// it was interrupted, and the command ends (closing the session).
func (c *callState) stopped() bool {
	return c.ctx != nil && c.ctx.Err() != nil && !timedOut(c.ctx)
}

func (s *Session) setCall(c *callState) {
	s.mu.Lock()
	idle := s.idle
	s.cur = c
	if c != nil {
		s.idle = nil
	}
	s.mu.Unlock()
	if c != nil {
		s.sayRefused(idle)
	}
}

// endCall ends the call c. A call the server asked too often
// (countAsked's bound) stays the one later questions count against until
// the next call: a server that asks again once the call was stopped (a
// task of 2025-11-25 whose tasks/result still runs while tasks/cancel is on
// its way) has them refused as past the same bound, neither asked nor
// shown, whether they come before the call returned or after; such a late
// refusal is no error of the calls after it (isOver).
func (s *Session) endCall(c *callState) {
	s.sayRefused(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == c {
		s.cur = nil
	}
	if c.asked >= s.opts.MaxRounds {
		c.over = true
		s.idle = c
	}
}

// isOver reports whether c is a call that endCall kept after the bound
// stopped it.
func (s *Session) isOver(c *callState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.over
}

func (s *Session) getCall() *callState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *Session) setLate(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.late == nil {
		s.late = err
	}
}

func (s *Session) takeLate() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.late
	s.late = nil
	return err
}
