package ui

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/session"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
)

// A task's progress is read from the end of its status messages, the
// newest that says it, and nothing else passes for it.
func TestTaskProgress(t *testing.T) {
	for msg, want := range map[string]string{
		"Updating instances to a 1 (3/10)": "3/10",
		"Updating (1.5/2) ":                "1.5/2",
		"(0/4)":                            "0/4",
		"Waiting for an answer":            "none",
		"odd (11/10)":                      "none",
		"odd (1/0)":                        "none",
		"odd (1/Inf)":                      "none",
		"odd (NaN/3)":                      "none",
		"odd (a/b)":                        "none",
		"odd (3)":                          "none",
		"odd 3/10)":                        "none",
	} {
		got := "none"
		if d, tot, ok := tasks.ProgressOf(msg); ok {
			got = fmt.Sprintf("%v/%v", d, tot)
		}
		if got != want {
			t.Errorf("ProgressOf(%q) = %s; want %s", msg, got, want)
		}
	}
	c := &call{}
	c.noteTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusWorking, StatusMessage: "Updating (5/10)"}, testNow)
	c.noteTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusInputRequired, StatusMessage: "Waiting for an answer"}, testNow)
	if d, tot, ok := c.TaskRun.Progress(); !ok || d != 5 || tot != 10 {
		t.Errorf("a question after progress: %v/%v %v; want 5/10 kept", d, tot, ok)
	}
}

// A task that changes its status at every poll keeps its first status and
// the newest ones, and counts those left out.
func TestTaskStepsAreBounded(t *testing.T) {
	c := &call{}
	for i := 0; i < 3*maxTaskSteps; i++ {
		c.noteTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusWorking, StatusMessage: fmt.Sprint(i)}, testNow)
	}
	tr := c.TaskRun
	defer func() {
		c.Done = true
		c.forget()
		if tr.Steps != nil || tr.ID != "t1" {
			t.Errorf("a forgotten call's task keeps %d statuses (id %q)", len(tr.Steps), tr.ID)
		}
	}()
	if len(tr.Steps) != maxTaskSteps || tr.Steps[0].Message != "0" || tr.Steps[len(tr.Steps)-1].Message != fmt.Sprint(3*maxTaskSteps-1) || tr.Skipped != 2*maxTaskSteps {
		t.Errorf("kept %d steps (first %q, last %q), %d left out", len(tr.Steps), tr.Steps[0].Message, tr.Steps[len(tr.Steps)-1].Message, tr.Skipped)
	}
}

// testNow is the clock of the tests that keep a task's statuses.
var testNow = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// The tool's form says whether it offered the choice: only then does an
// unticked box make a plain call.
func TestTaskModeOf(t *testing.T) {
	for _, tc := range []struct {
		form string
		want session.TaskMode
	}{
		{"kind=tool", session.TaskDefault},
		{"kind=tool&task=on", session.TaskDefault},
		{"kind=tool&task-offered=1", session.TaskNone},
		{"kind=tool&task-offered=1&task=on", session.TaskAsk},
	} {
		r := httptest.NewRequest("POST", "/call", strings.NewReader(tc.form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if got := taskModeOf(r); got != tc.want {
			t.Errorf("%s: %v; want %v", tc.form, got, tc.want)
		}
	}
	if newTaskRun(session.TaskDefault) != nil || (&call{}).taskMode() != session.TaskDefault || (&call{TaskRun: newTaskRun(session.TaskNone)}).taskMode() != session.TaskNone {
		t.Error("a call keeps the person's choice, and none when they made none")
	}
}

// What a server says of its task (id, status, status message) is shown as
// text on the call's page: markup in it is escaped, controls neutralised.
func TestTaskShownAsText(t *testing.T) {
	s, h := guarded(t)
	cl := &call{ID: 1, Kind: "tool", Name: "rollout", Started: testNow, cancel: func() {}}
	cl.noteTask(taskclient.Update{TaskID: `<b id="forged">t1</b>`, Status: tasks.StatusWorking, StatusMessage: "<script>alert(1)</script>\x1b[31m (2/4)"}, testNow)
	s.calls = append(s.calls, cl)
	rec := get(t, s, h, "/calls/1")
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("GET /calls/1: %d %s", rec.Code, body)
	}
	for _, bad := range []string{"<script>", `<b id="forged">`, "\x1b"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q as the server sent it", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "Cancel the task", `<progress aria-labelledby="task-progress-l" max="4" value="2">`, `http-equiv="refresh"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page has no %q:\n%s", want, body)
		}
	}
}

// A page is rendered after the lock is released, so what base hands it is
// a copy: a call or run that goes on changing does not change the view.
func TestBaseCopiesCallsAndRuns(t *testing.T) {
	s := &Server{}
	cl := &call{ID: 1, Name: "deploy"}
	cl.noteTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusWorking}, testNow)
	ru := &run{ID: 1, Args: []string{"audit"}}
	s.calls, s.runs = []*call{cl}, []*run{ru}
	v := s.base("x")
	cl.Done, cl.Err, ru.Done, ru.Code = true, "gone", true, 3
	cl.noteTask(taskclient.Update{TaskID: "t1", Status: tasks.StatusCompleted}, testNow)
	if len(v.Calls) != 1 || v.Calls[0] == cl || v.Calls[0].Done || v.Calls[0].Err != "" {
		t.Errorf("the view shares the running call: %+v", v.Calls)
	}
	if len(v.Calls) == 1 && (v.Calls[0].TaskRun == cl.TaskRun || v.Calls[0].TaskRun.Shown() == cl.TaskRun.Shown()) {
		t.Errorf("the view shares the call's task (%q)", v.Calls[0].TaskRun.Shown())
	}
	if len(v.Runs) != 1 || v.Runs[0] == ru || v.Runs[0].Done || v.Runs[0].Code != 0 {
		t.Errorf("the view shares the running run: %+v", v.Runs)
	}
}
