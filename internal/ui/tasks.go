package ui

import (
	"context"
	"net/http"
	"time"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call may run as a task: the person asks for one on the tool's page
// (taskChoice), the session runs it (session.CallToolWith) and tells every
// status it sees (onTask), the call's page shows them (assets/task.html)
// and reloads itself while the task runs, a question the task asks half-way
// is asked like any other, and the page's Cancel sends tasks/cancel
// (cancelTask).

// taskChoice is what the tool's page offers of running a call as a task.
type taskChoice struct {
	// Checked: the box starts ticked, as the session would run the call
	// (the tool requires a task, or the server decides on 2026-07-28).
	Checked bool
	// Required: the server runs the tool only as a task.
	Required bool
	// Legacy: protocol 2025-11-25, whose calls ask with params.task.
	Legacy bool
}

// taskChoiceOf is what the page offers for tool name of the session c;
// nil when the call cannot run as a task. It may list the server's tools
// (once per session): call it without s.mu.
func taskChoiceOf(ctx context.Context, c *conn, name string) *taskChoice {
	if c == nil || c.sess == nil {
		return nil
	}
	ts := c.sess.TaskSupport(ctx, name)
	if !ts.Can {
		return nil
	}
	legacy := c.sess.ProtocolVersion() < session.Modern
	return &taskChoice{Checked: ts.Required || !legacy, Required: ts.Required, Legacy: legacy}
}

// taskChoiceAgain is the choice a refused form of a tool shows again,
// with what the person chose.
func taskChoiceAgain(ctx context.Context, c *conn, kind, name string, mode session.TaskMode) *taskChoice {
	if kind != "tool" {
		return nil
	}
	tc := taskChoiceOf(ctx, c, name)
	if tc != nil && mode != session.TaskDefault {
		tc.Checked = mode == session.TaskAsk
	}
	return tc
}

// taskModeOf reads the person's choice from a posted call form: a form that
// offered the choice says so with "task-offered", and "task" is the box.
func taskModeOf(r *http.Request) session.TaskMode {
	switch {
	case r.PostFormValue("task-offered") == "":
		return session.TaskDefault
	case r.PostFormValue("task") == "on":
		return session.TaskAsk
	default:
		return session.TaskNone
	}
}

// taskRun is the task a call runs as, as the page shows it.
type taskRun struct {
	Mode    session.TaskMode // what the person chose
	ID      string
	Status  string
	Message string
	// Steps are the statuses seen, the oldest first (at most maxTaskSteps:
	// the first and the newest).
	Steps   []taskStep
	Skipped int // steps left out between the first and the newest
	// CancelSent: tasks/cancel was sent and the server took it;
	// CancelErr: why it was not.
	CancelSent bool
	CancelErr  string
	// Final is the status tasks/get gave once the call ended after a
	// cancel, when the last one seen was another.
	Final string
}

// taskStep is one status of a task.
type taskStep struct {
	Time    time.Time
	Status  string
	Message string
}

// maxTaskSteps bounds the statuses a task keeps: a server that changes
// its status message at every poll of a long task does not grow the page.
const maxTaskSteps = 50

// taskFuncs are the template functions of assets/task.html.
func taskFuncs() map[string]any {
	return map[string]any{
		// taskIn is the tool's task choice for the form whose box is id.
		"taskIn": func(tv *toolView, id string) taskField { return taskField{ID: id, Choice: tv.Task} },
		"taskProgress": func(tr *taskRun) *taskProgress {
			if d, t, ok := tr.Progress(); ok {
				return &taskProgress{Done: d, Total: t}
			}
			return nil
		},
	}
}

// taskField is the task choice of one form, its box named ID.
type taskField struct {
	ID     string
	Choice *taskChoice
}

// taskProgress is how far a task says it is.
type taskProgress struct{ Done, Total float64 }

// Asked reports whether the person asked for a task.
func (tr *taskRun) Asked() bool { return tr.Mode == session.TaskAsk }

// newTaskRun is the task state of a call made with mode m; nil when the
// person made no choice (the session's default).
func newTaskRun(m session.TaskMode) *taskRun {
	if m == session.TaskDefault {
		return nil
	}
	return &taskRun{Mode: m}
}

// taskMode is the call's choice of running as a task.
func (c *call) taskMode() session.TaskMode {
	if c.TaskRun == nil {
		return session.TaskDefault
	}
	return c.TaskRun.Mode
}

// noteTask keeps a status of the call's task; hold s.mu.
func (c *call) noteTask(u taskclient.Update, now time.Time) {
	if c.TaskRun == nil {
		c.TaskRun = &taskRun{}
	}
	tr := c.TaskRun
	tr.ID, tr.Status, tr.Message = u.TaskID, string(u.Status), trim(u.StatusMessage, 4<<10)
	step := taskStep{Time: now, Status: tr.Status, Message: tr.Message}
	if len(tr.Steps) >= maxTaskSteps {
		// Keep the first, drop the oldest after it.
		copy(tr.Steps[1:], tr.Steps[2:])
		tr.Steps = tr.Steps[:len(tr.Steps)-1]
		tr.Skipped++
	}
	tr.Steps = append(tr.Steps, step)
}

// copy is a copy of tr the page renders without s.mu.
func (tr *taskRun) copy() *taskRun {
	if tr == nil {
		return nil
	}
	x := *tr
	x.Steps = append([]taskStep(nil), tr.Steps...)
	return &x
}

// forget drops the statuses seen of a call's task that ended long ago
// (call.forget); the task keeps its id and last status.
func (tr *taskRun) forget() {
	if tr != nil {
		tr.Steps, tr.Skipped = nil, 0
	}
}

// Ended reports whether the task's last status is a final one.
func (tr *taskRun) Ended() bool {
	return tasks.Status(tr.Shown()).Terminal()
}

// Shown is the task's status as the page shows it: what tasks/get said
// after a cancel, else the last status seen.
func (tr *taskRun) Shown() string {
	if tr.Final != "" {
		return tr.Final
	}
	return tr.Status
}

// Progress is how far the task said it was last, read from the end of the
// newest status message that says it, as the tasks package writes it
// ("… (3/10)"): a question asked half-way keeps the progress made before
// it. ok is false when no message said it.
func (tr *taskRun) Progress() (done, total float64, ok bool) {
	for i := len(tr.Steps) - 1; i >= 0; i-- {
		if done, total, ok = tasks.ProgressOf(tr.Steps[i].Message); ok {
			return done, total, true
		}
	}
	return 0, 0, false
}

// cancelTask cancels the task the call runs as: tasks/cancel, a question
// of the task waiting for the person is withdrawn (answered "cancel"), and
// the task's status read at once (tasks/get). It reports false when the call runs no task the page knows
// of, to be cancelled as any call is.
func (s *Server) cancelTask(ctx context.Context, cl *call) bool {
	s.mu.Lock()
	c, tr := s.conn, cl.TaskRun
	if cl.Done || c == nil || tr == nil || tr.ID == "" || tr.Ended() {
		s.mu.Unlock()
		return false
	}
	if tr.CancelSent {
		// Sent once already: the page follows the task to its end.
		s.mu.Unlock()
		return true
	}
	id := tr.ID
	s.mu.Unlock()
	// Sent whole even if the person leaves the page meanwhile (the
	// session bounds it by its time limit).
	err := c.sess.CancelTask(context.WithoutCancel(ctx), id)
	if withdrawn := s.noteCancel(cl, err); withdrawn != nil {
		withdrawn.reply <- &mcp.ElicitResult{Action: "cancel"}
	}
	if err == nil {
		// The server's word at once: the call's own wait may poll again
		// only after the interval the server asked for (up to 30 s).
		s.refreshTask(ctx, c, cl, id)
	}
	return true
}

// noteCancel notes how the tasks/cancel of cl's task went (err). Once it
// is sent, the task's question waiting for the person is withdrawn: it is
// returned, to be answered "cancel".
func (s *Server) noteCancel(cl *call, err error) (withdrawn *pending) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tr := cl.TaskRun
	if err != nil {
		tr.CancelErr = err.Error()
	} else {
		tr.CancelSent, tr.CancelErr = true, ""
		if p := cl.Pending; p != nil && p.Q != nil && len(p.Parts) == 0 {
			withdrawn, cl.Pending = p, nil
		}
	}
	s.notify()
	return withdrawn
}

// refreshTask reads the status of task id (tasks/get) into cl while it runs.
func (s *Server) refreshTask(ctx context.Context, c *conn, cl *call, id string) {
	g, err := c.sess.GetTask(context.WithoutCancel(ctx), id)
	if err != nil || g == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !cl.Done {
		cl.noteTask(taskclient.Update{TaskID: id, Status: g.Status, StatusMessage: g.StatusMessage}, s.opts.Now())
		s.notify()
	}
}

// afterCancel asks, once a call whose task the person cancelled has ended,
// for the task's status (tasks/get), when the last status seen is not
// "cancelled": on protocol 2025-11-25 the client tells how a task ended
// from what tasks/result answered, and an error there reads as "failed".
func (s *Server) afterCancel(c *conn, cl *call) {
	s.mu.Lock()
	tr := cl.TaskRun
	ask := tr != nil && tr.CancelSent && tr.Status != string(tasks.StatusCancelled)
	var id string
	if ask {
		id = tr.ID
	}
	s.mu.Unlock()
	if !ask {
		return
	}
	g, err := c.sess.GetTask(context.Background(), id)
	if err != nil || g == nil {
		return
	}
	s.mu.Lock()
	tr.Final = string(g.Status)
	s.mu.Unlock()
}
