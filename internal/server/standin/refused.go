package standin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// neverAsked says, for a problem's detail, which recorded questions of x
// the client was never asked ("" when x asked none).
func neverAsked(x *Exchange) string {
	qs := x.questions()
	if len(qs) == 0 {
		return ""
	}
	keys := make([]string, 0, len(qs))
	for _, q := range qs {
		keys = append(keys, fmt.Sprintf("%q (line %d)", q.Key, q.Line))
	}
	if len(qs) == 1 {
		return "; its recorded question was never asked: " + keys[0]
	}
	return fmt.Sprintf("; its %d recorded questions were never asked: %s", len(qs), strings.Join(keys, ", "))
}

// refusedUntasked reports a recorded call the recording ran as a task
// that the client made without asking for one, which the stand-in
// refused as the server refuses it: the client did not do what was
// recorded.
func (s *Standin) refusedUntasked(x *Exchange) {
	s.rep.problem(Problem{Kind: ProblemRefused, Request: x.Label(), Line: x.Line,
		Detail: "the call asks for no task, and the recording's call ran as a task (the tool runs only as one): the stand-in refused it, as the server does" + neverAsked(x)})
}

// refusedOwn reports a request the stand-in refused on its own, with err,
// the error the client got: not as the recorded server would have, but
// for a bound of its own (its tasks, its requests in progress) or params
// it cannot match with the recording (keys that repeat or differ only in
// letter case). The client did not get what the recording holds, which
// is no pass. line is the recording's line of the call, where known; got,
// what the client sent, where it says more than the request's name.
func (s *Standin) refusedOwn(request string, line int, got json.RawMessage, err error) {
	why := err.Error()
	var w *jsonrpc.Error
	if errors.As(err, &w) {
		why = fmt.Sprintf("%s (%d)", strings.TrimPrefix(w.Message, "mcp-tester serve: "), w.Code)
	}
	s.rep.problem(Problem{Kind: ProblemRefused, Request: request, Line: line, Got: got,
		Detail: "the stand-in refused it on its own: " + termsafe.Line(why)})
}

// taskProblems are the tasks the client started that did not go as
// recorded: one it cancelled where the recording's ran on (ProblemCancelled),
// and one whose recorded questions it never came to be asked, as it never
// asked for the task's result (2025-11-25: tasks/result) or status
// (tasks extension: tasks/get) (ProblemUnanswered). A task whose shown
// question waits is in waiting already.
func (s *Standin) taskProblems() []Problem {
	var out []Problem
	for _, t := range s.tasks.all() {
		switch tk := t.(type) {
		case *task2025:
			st := tk.status()
			tk.mu.Lock()
			asked := tk.asking
			tk.mu.Unlock()
			x := tk.x
			switch {
			case st.Status == "cancelled" && !x.Task.cancelled():
				detail := "the client cancelled the task, which the recording ran to its end"
				if !asked {
					detail += neverAsked(x)
				}
				out = append(out, Problem{Kind: ProblemCancelled, Request: x.Label(), Line: x.Line, Detail: detail})
			case st.Status != "cancelled" && x.Task.cancelLine() > 0:
				out = append(out, notCancelled(x, x.Task.cancelLine(), "shown cancelled"))
			case !asked && x.Questions() > 0:
				out = append(out, Problem{Kind: ProblemUnanswered, Request: x.Label(), Line: x.Line,
					Detail: "the client never asked for the task's result (tasks/result)" + neverAsked(x)})
			}
		case *extTask:
			tk.mu.Lock()
			cancelled, shown, answered := tk.cancelled, tk.shown, len(tk.answered)
			tk.mu.Unlock()
			x := tk.x
			switch {
			case cancelled && tk.rec.CancelLine == 0 && !tk.rec.cancelledShown():
				detail := "the client cancelled the task, which the recording ran to its end"
				if !shown && answered == 0 {
					detail += neverAsked(x)
				}
				out = append(out, Problem{Kind: ProblemCancelled, Request: x.Label(), Line: x.Line, Detail: detail})
			case !cancelled && tk.rec.CancelLine > 0:
				out = append(out, notCancelled(x, tk.rec.CancelLine, "tasks/cancel"))
			case !cancelled && !shown && answered == 0 && x.Questions() > 0:
				out = append(out, Problem{Kind: ProblemUnanswered, Request: x.Label(), Line: x.Line,
					Detail: "the client never polled the task (tasks/get) to be shown its questions" + neverAsked(x)})
			}
		}
	}
	return out
}

// notCancelled is the problem of a task the recording's client cancelled
// (where: the line of its cancel, or of the status that showed it) and the
// client did not: a request of the recording it never made (missing).
func notCancelled(x *Exchange, line int, how string) Problem {
	return Problem{Kind: ProblemMissing, Request: x.Label(), Line: x.Line,
		Detail: fmt.Sprintf("the recording's client cancelled the task (%s, line %d); this client never cancelled it", how, line)}
}

// cancelLine is the line where the recorded task was first shown
// cancelled, or 0.
func (t *Task2025) cancelLine() int {
	if t == nil {
		return 0
	}
	for _, st := range t.Statuses {
		if st.Status == "cancelled" {
			return st.Line
		}
	}
	return 0
}

// cancelled reports whether the recorded task was shown cancelled.
func (t *Task2025) cancelled() bool {
	if t == nil {
		return false
	}
	for _, st := range t.Statuses {
		if st.Status == "cancelled" {
			return true
		}
	}
	return false
}

// cancelledShown reports whether the recorded task was shown cancelled.
func (t *ExtTask) cancelledShown() bool {
	for _, st := range t.States {
		if st.Status == tasks.StatusCancelled || st.AfterCancel {
			return true
		}
	}
	return false
}
