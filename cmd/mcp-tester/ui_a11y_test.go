package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The helpers in this file drive the page as a person with a screen
// reader and a keyboard does, and as a browser script that knows nothing
// of the page's markup would: a control is found in the browser's own
// accessibility tree by its role and accessible name (what Chromium
// computes from aria-label, the label, the button's text), never by a CSS
// class or an id; it is focused and pressed with the keyboard.

// axCtx is a context for one exchange with the browser.
func (p *uiPage) axCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.b.Context(), 30*time.Second)
}

// axFind is the DOM node of the one control of role named name (the
// first, when the page has several), or 0 when the page has none.
func (p *uiPage) axFind(role, name string) cdp.BackendNodeID {
	p.t.Helper()
	ctx, cancel := p.axCtx()
	defer cancel()
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		p.t.Fatalf("the page's document: %v", err)
	}
	res, err := chromedp.Call(ctx, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{BackendNodeID: doc.Root.BackendNodeID, AccessibleName: name, Role: role})
	if err != nil {
		p.t.Fatalf("the accessibility tree: %v", err)
	}
	for _, n := range res.Nodes {
		if !n.Ignored && n.BackendDOMNodeID != 0 {
			return n.BackendDOMNodeID
		}
	}
	return 0
}

// axNeed is axFind, failing the test when there is no such control.
func (p *uiPage) axNeed(role, name string) cdp.BackendNodeID {
	p.t.Helper()
	id := p.axFind(role, name)
	if id == 0 {
		p.t.Fatalf("no %s named %q in the page's accessibility tree; the page shows:\n%s", role, name, p.text())
	}
	return id
}

// axCall calls the JavaScript function fn on the node (this), and
// returns its value as JSON.
func (p *uiPage) axCall(id cdp.BackendNodeID, fn string) string {
	p.t.Helper()
	ctx, cancel := p.axCtx()
	defer cancel()
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil {
		p.t.Fatalf("resolve the node: %v", err)
	}
	byValue := true
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, ReturnByValue: &byValue})
	if err != nil {
		p.t.Fatalf("call %s: %v", fn, err)
	}
	if res.ExceptionDetails != nil {
		p.t.Fatalf("call %s: %s", fn, res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return ""
	}
	return string(res.Result.Value)
}

// axFocus moves the keyboard's focus to the control.
func (p *uiPage) axFocus(id cdp.BackendNodeID) {
	p.t.Helper()
	ctx, cancel := p.axCtx()
	defer cancel()
	if _, err := chromedp.Call(ctx, dom.Focus, dom.FocusParams{BackendNodeID: id}); err != nil {
		p.t.Fatalf("focus: %v", err)
	}
}

// key presses a key (Enter, Tab, " ") on what has the focus.
func (p *uiPage) key(key string) {
	p.t.Helper()
	code, vk, text := key, int64(0), ""
	switch key {
	case "Enter":
		vk, text = 13, "\r"
	case "Tab":
		vk = 9
	case " ":
		code, vk, text = "Space", 32, " "
	}
	ctx, cancel := p.axCtx()
	defer cancel()
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		ev := input.DispatchKeyEventParams{Type: typ, Key: key, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk}
		if typ == input.DispatchKeyEventTypeKeyDown {
			ev.Text = text
		}
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, ev); err != nil {
			p.t.Fatalf("press %q: %v", key, err)
		}
	}
}

// press focuses the button or link named name and presses Enter on it,
// then waits for the page it leads to.
func (p *uiPage) press(role, name string) {
	p.t.Helper()
	id := p.axNeed(role, name)
	browsertest.Eval[bool](p.b, `window.uiStale = true`)
	p.axFocus(id)
	p.key("Enter")
	p.waitLoaded()
}

// type_ types text into the text box named name, in place of what it
// held.
func (p *uiPage) typeInto(name, text string) {
	p.t.Helper()
	id := p.axNeed("textbox", name)
	p.axCall(id, `function() { this.value = ''; }`)
	p.axFocus(id)
	ctx, cancel := p.axCtx()
	defer cancel()
	if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		p.t.Fatalf("type into %q: %v", name, err)
	}
}

// tick ticks the checkbox or radio button named name with the space bar
// (a radio button is ticked by it; a checkbox already ticked is left).
func (p *uiPage) tick(role, name string) {
	p.t.Helper()
	id := p.axNeed(role, name)
	if p.axCall(id, `function() { return this.checked; }`) == "true" {
		return
	}
	p.axFocus(id)
	p.key(" ")
	if p.axCall(id, `function() { return this.checked; }`) != "true" {
		p.t.Fatalf("the space bar did not tick the %s %q", role, name)
	}
}

// pick chooses the option shown as option in the choice (combobox) named
// name.
func (p *uiPage) pick(name, option string) {
	p.t.Helper()
	id := p.axNeed("combobox", name)
	o, _ := json.Marshal(option)
	if p.axCall(id, fmt.Sprintf(`function() { for (const opt of this.options) if (opt.textContent.trim() === %s) { this.value = opt.value; return true; } return false; }`, o)) != "true" {
		p.t.Fatalf("the choice %q has no option %q", name, option)
	}
}

// namesTell fails the test when two controls of the page share a role
// and an accessible name (a script, or a person listening, cannot tell
// them apart), or a control has no name.
func (p *uiPage) namesTell(where string) {
	p.t.Helper()
	ctx, cancel := p.axCtx()
	defer cancel()
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		p.t.Fatalf("the accessibility tree: %v", err)
	}
	controls := map[string]bool{"button": true, "link": true, "textbox": true, "checkbox": true, "radio": true, "combobox": true, "listbox": true}
	seen := map[string]int{}
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil || n.Name == nil {
			continue
		}
		var role, name string
		_ = json.Unmarshal(n.Role.Value, &role)
		_ = json.Unmarshal(n.Name.Value, &name)
		if !controls[role] {
			continue
		}
		if strings.TrimSpace(name) == "" {
			p.t.Errorf("%s: a %s has no accessible name", where, role)
			continue
		}
		seen[role+" "+strconv.Quote(name)]++
	}
	for k, n := range seen {
		if n > 1 {
			p.t.Errorf("%s: %d controls are the %s", where, n, k)
		}
	}
}

// tabReachesEverything presses Tab from the top of the page until the
// focus comes round, and fails the test when a control was never
// reached: every link, button, field and disclosure, and each group of
// radio buttons (Tab reaches a group once; the arrows move inside it).
func (p *uiPage) tabReachesEverything(where string) {
	p.t.Helper()
	p.namesTell(where)
	n := browsertest.Eval[int](p.b, `(() => {
		const all = document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary');
		all.forEach((el, i) => { el.dataset.tabCheck = el.type === 'radio' ? 'radio:' + el.name : String(i); });
		if (document.activeElement) document.activeElement.blur();
		return all.length; })()`)
	want := map[string]bool{}
	for _, k := range browsertest.Eval[[]string](p.b, `Array.from(document.querySelectorAll('[data-tab-check]'), el => el.dataset.tabCheck)`) {
		want[k] = true
	}
	reached := map[string]bool{}
	for i := 0; i < n+2; i++ {
		p.key("Tab")
		if k := browsertest.Eval[string](p.b, `(document.activeElement && document.activeElement.dataset.tabCheck) || ''`); k != "" {
			reached[k] = true
		}
	}
	var missed []string
	for k := range want {
		if !reached[k] {
			missed = append(missed, browsertest.Eval[string](p.b, fmt.Sprintf(`(() => { const el = document.querySelector('[data-tab-check=%q]'); return el.outerHTML.slice(0, 160); })()`, k)))
		}
	}
	if len(missed) > 0 {
		p.t.Errorf("%s: Tab never reaches %d of %d controls:\n%s", where, len(missed), len(want), strings.Join(missed, "\n"))
	}
}

// A person who has never seen the page connects to the deployer, calls
// its deploy tool, answers its question by the labels of the fields,
// declines once, reads the result and the rounds, saves the session as a
// script, runs it, and sees it pass: every control found by its role and
// accessible name in the browser's accessibility tree, pressed with the
// keyboard, and every control of every page reached with Tab.
func TestUIByAccessibleNames(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer")
	browsertest.Require(t)
	url, dir := startUI(t, bin)
	b := browsers.New(t)
	p := openUI(t, b, url, dir)

	p.typeInto("Command (stdio server)", filepath.Join(bin, "deployer"))
	p.pick("Protocol version", "2026-07-28 (input_required rounds)")
	p.press("button", "Connect")
	p.see("Connected to ")
	p.see("deployer")
	p.tabReachesEverything("the server's page")

	deploy := func(answer string) {
		t.Helper()
		p.press("link", "Tool deploy")
		p.tabReachesEverything("the tool's page")
		p.typeInto("service (required)", "auth-service")
		p.press("button", "Call deploy")
		p.see("Roll out auth-service version 2.4.1")
		p.tabReachesEverything("the question")
		if answer == "Accept" {
			p.pick("Target environment (required)", "Production")
			p.tick("checkbox", "I have reviewed the changes (required)")
		}
		p.press("button", answer)
	}
	deploy("Accept")
	p.see("Rolling out auth-service 2.4.1 to production.")
	p.axNeed("heading", "Rounds")
	p.axNeed("heading", "Result")
	p.see("Answered: accept")
	p.see("went back untouched")
	p.tabReachesEverything("the call's result")

	p.press("link", "Back to the server")
	deploy("Decline")
	p.see("Answered: decline")
	p.see("not started")

	p.press("link", "Back to the server")
	p.press("button", "Save script")
	p.see("Saved ")
	if _, err := os.Stat(filepath.Join(dir, "session.mcp")); err != nil {
		t.Fatalf("the script was not saved: %v", err)
	}
	p.press("button", "Run script")
	p.see("Passed (exit 0).")
	p.tabReachesEverything("the run")

	p.press("link", "Messages")
	p.axNeed("combobox", "Direction")
	p.axNeed("combobox", "Method")
	p.tabReachesEverything("the messages")
	p.checkOwnRequests()
}

// audit, scan, inspect and grade run from the page, against the page's
// server, and each shows its HTML report: a page of the command, with no
// script, served sandboxed.
func TestUIReports(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer")
	browsertest.Require(t)
	url, dir := startUI(t, bin, "-c", filepath.Join(bin, "deployer"))
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	p.see("deployer")
	for _, what := range []string{"audit", "scan", "inspect", "grade"} {
		p.press("button", "Run "+what)
		p.see("(exit ")
		p.see("mcp-tester " + what + " -c ")
		p.press("link", "Open the HTML report")
		if title := browsertest.Eval[string](b, `document.title`); !strings.HasPrefix(title, "mcp-tester "+what+": ") {
			t.Errorf("the %s report's title is %q", what, title)
		}
		if n := browsertest.Eval[int](b, `document.querySelectorAll("script").length`); n != 0 {
			t.Errorf("the %s report has %d scripts", what, n)
		}
		if what == "grade" {
			b.Screenshot("ui-grade-report")
		}
		b.Do(chromedp.Navigate(p.base+"/"), chromedp.WaitReady("body"))
	}
	p.checkOwnRequests()
}
