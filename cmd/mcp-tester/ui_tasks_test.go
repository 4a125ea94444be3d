package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/chromedp/chromedp"
)

// The tests in this file run calls as tasks from the page, in both eras: a
// task of the tasks extension (2026-07-28: the deployer's rollout) and one
// of protocol 2025-11-25 (the tasks2025 fixture's survey). The person
// starts the call as a task, sees its id, status and progress, answers
// the question it asks half-way, and sees it complete; then starts
// another and cancels it, at its question and while it works.

// taskCase is one era's task tool and what the person does with it.
type taskCase struct {
	name     string
	server   string   // the stdio command, in bin
	slow     string   // the same server with slow steps
	protocol string   // the protocol spoken
	tool     string   // the tool that runs as a task
	fill     []string // label, value, … of the tool's form
	choose   []string // label, option, … of the tool's form
	question string   // what the task asks half-way
	via      string   // how the question comes, as the timeline says
	label    string   // the question's field
	option   string   // the answer chosen
	result   string   // what the completed task says
	working  string   // what the slow server's task shows while it works
	plain    string   // what the call says when it is not run as a task
	http     bool     // the servers are reached over HTTP: server and slow are their flags
}

func TestUITasks(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer", "./internal/testsupport/fixtures/tasks2025")
	browsertest.Require(t)
	b := browsers.New(t)
	for _, tc := range []taskCase{{
		name: "extension-2026", server: "deployer -rollout-step 1ms", slow: "deployer -rollout-step 8s", protocol: "2026-07-28",
		tool: "rollout", fill: []string{"service", "auth-service", "version", "2.4.1"},
		question: "continue?", via: "Round 1 · task", label: "How should the rollout go on?", option: "Continue",
		result: "Rollout of auth-service 2.4.1 complete", working: "of 10", // its progress
		plain: "the client cannot be asked whether to continue",
	}, {
		name: "protocol-2025", server: "tasks2025 -step 1ms", slow: "tasks2025 -step 1h", protocol: "2025-11-25",
		tool: "survey", fill: []string{"topic", "lunch"}, choose: []string{"ask", "Yes"},
		question: `Which audience is the survey on "lunch" for?`, via: "Round 1 · elicitation/create", label: "Audience", option: "staff",
		result: "Survey on lunch sent to staff.", working: "drafting the questions",
		plain: "method not found",
	}, {
		name: "extension-2026-http", server: "-rollout-step 1ms", slow: "-rollout-step 8s", protocol: "2026-07-28", http: true,
		tool: "rollout", fill: []string{"service", "auth-service", "version", "2.4.1"},
		question: "continue?", via: "Round 1 · task", label: "How should the rollout go on?", option: "Continue",
		result: "Rollout of auth-service 2.4.1 complete", working: "of 10",
		plain: "the client cannot be asked whether to continue",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			target, slow := []string{"-c", filepath.Join(bin, tc.server)}, filepath.Join(bin, tc.slow)
			if tc.http {
				// The deployer over Streamable HTTP (stateless on 2026-07-28).
				fast, slowAddr := freeAddr(t), freeAddr(t)
				startServer(t, fast, filepath.Join(bin, "deployer"), append([]string{"-http", fast}, strings.Fields(tc.server)...)...)
				startServer(t, slowAddr, filepath.Join(bin, "deployer"), append([]string{"-http", slowAddr}, strings.Fields(tc.slow)...)...)
				target, slow = []string{"-u", "http://" + fast + "/mcp"}, "http://"+slowAddr+"/mcp"
			}
			url, dir := startUI(t, bin, append(target, "--protocol", tc.protocol)...)
			p := openUI(t, b, url, dir)
			p.see(tc.protocol)
			start := func(asTask bool) {
				t.Helper()
				p.click("Tool " + tc.tool)
				for i := 0; i+1 < len(tc.fill); i += 2 {
					p.fill(tc.fill[i], tc.fill[i+1])
				}
				for i := 0; i+1 < len(tc.choose); i += 2 {
					p.choose(tc.choose[i], tc.choose[i+1])
				}
				p.setBox("Run as a task", asTask)
				p.click("Call " + tc.tool)
			}

			// Started as a task, it asks half-way; the answer goes in the
			// page like any other, and the task completes.
			start(true)
			p.see(tc.question)
			p.see("Task id")
			p.seeTaskStatus("input_required")
			if tc.name == "extension-2026" {
				b.Screenshot("ui-task-question")
			}
			p.choose(tc.label, tc.option)
			p.click("Accept")
			p.see(tc.result)
			p.seeTaskStatus("completed")
			p.see(tc.via)
			if tc.name == "extension-2026" {
				b.Screenshot("ui-task-completed")
			}

			// Unticked, the call is a plain one: the rollout cannot ask
			// and pauses; the survey, which runs only as a task, is
			// refused.
			p.click("Back to the server")
			start(false)
			p.see(tc.plain)
			if text := p.text(); strings.Contains(text, "Task id") {
				t.Errorf("a plain call shows a task:\n%s", text)
			}

			// Another, cancelled while it waits for the answer: its question
			// is withdrawn and the server says the task is cancelled.
			p.click("Back to the server")
			start(true)
			p.see(tc.question)
			p.clickLive("Cancel the task")
			p.see("Cancel sent (tasks/cancel); the server took it.")
			p.seeTaskStatus("cancelled")
			p.see("Answered: cancel")
			p.click("Back to the server")
			p.see("task cancelled") // in the list of calls

			// And one cancelled while it works, on a server whose steps
			// are slow (the rollout's take 8 s: the page has 8 to 40 s to see
			// the progress at a loaded machine's pace; the survey's never end).
			if tc.http {
				p.fill("URL (HTTP server)", slow)
			} else {
				p.fill("Command (stdio server)", slow)
			}
			p.click("Connect")
			p.see("Connected to ")
			start(true)
			p.see(tc.working)
			if tc.name == "extension-2026" {
				b.Screenshot("ui-task-progress")
			}
			p.clickLive("Cancel the task")
			p.seeTaskStatus("cancelled")
			if tc.name == "extension-2026" {
				b.Screenshot("ui-task-cancelled")
			}
			p.checkOwnRequests()
		})
	}
}

// clickLive is click on a page that reloads itself while a task runs: it
// waits for a loaded page that has the control, then activates it.
func (p *uiPage) clickLive(name string) {
	p.t.Helper()
	js, _ := json.Marshal(name)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(p.b.Context(), 10*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](finders+fmt.Sprintf(`(() => {
			if (document.readyState !== 'complete') return false;
			const el = uiControl(%s); if (!el) return false;
			window.uiStale = true; el.click(); return true; })()`, js)))
		cancel()
		if err == nil && ok {
			p.waitLoaded()
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no button or link named %q on the page:\n%s", name, p.text())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setBox ticks or unticks the checkbox labelled label.
func (p *uiPage) setBox(label string, on bool) {
	p.t.Helper()
	l, _ := json.Marshal(label)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => { const f = uiField(%s); if (!f || f.type !== "checkbox") return false; f.checked = %v; return true; })()`, l, on)); !ok {
		p.t.Fatalf("no checkbox labelled %q:\n%s", label, p.text())
	}
}

// seeTaskStatus waits until the task's status on the page is status.
func (p *uiPage) seeTaskStatus(status string) {
	p.t.Helper()
	p.see("Status\n" + status)
	if s := evalUI[string](p, `(document.getElementById("task-status") || {}).textContent || ""`); !strings.HasPrefix(s, status) {
		p.t.Errorf("the task's status reads %q; want %q", s, status)
	}
}
