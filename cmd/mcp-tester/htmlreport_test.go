package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// The tests in this file run mcp-tester with --html against real servers,
// open each report in headless Chromium from its file:// URL, check what a
// person sees there, and keep a screenshot of it (see
// internal/testsupport/browsertest: in $ASKBACK_ARTIFACTS when set).

// runBinary runs the mcp-tester binary in dir and returns its stdout and
// exit code.
func runBinary(t *testing.T, bin, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "mcp-tester"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcp-tester %s: %v", strings.Join(args, " "), err)
	}
	if code == 2 || code == 3 {
		t.Fatalf("mcp-tester %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String(), code
}

// reportBinaries are mcp-tester and the servers its reports are made of.
func reportBinaries(t *testing.T) string {
	t.Helper()
	return testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer", "./internal/testsupport/fixtures/rulebreaker", "./internal/testsupport/fixtures/manytools", "./internal/testsupport/fixtures/hostile")
}

// openReport opens the report at path in a fresh browser, checks that the
// page made no request but for its own file, has no script and is styled
// by its own style sheet (which its Content Security Policy allows by
// hash), and keeps a screenshot named name.
func openReport(t *testing.T, path, name string) *browsertest.Browser {
	t.Helper()
	b := browsers.New(t)
	url := b.Open(path)
	if reqs := b.Requests(); len(reqs) != 1 || reqs[0] != url {
		t.Errorf("the page made the requests %q; want only its own file %s", reqs, url)
	}
	if n := browsertest.Eval[int](b, `performance.getEntriesByType("resource").length`); n != 0 {
		t.Errorf("the page loaded %d resources", n)
	}
	if n := browsertest.Eval[int](b, `document.querySelectorAll("script, link, img, iframe, object, embed, [src], [href^='http']").length`); n != 0 {
		t.Errorf("the page has %d elements that load or run something", n)
	}
	// The style sheet applied: the header's bottom border is 4px.
	if w := browsertest.Eval[string](b, `getComputedStyle(document.querySelector("header")).borderBottomWidth`); w != "4px" {
		t.Errorf("the page's style sheet did not apply (header border %q): blocked by its policy?", w)
	}
	b.Screenshot(name)
	return b
}

// A test report shows the failed step first, at its FILE:LINE with what
// was expected and what came, and each asking step with the question the
// server asked and the answer given.
func TestHTMLReportOfScripts(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	failing := "elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\ncall_tool deploy service:\"auth-service\"\n\nassert_contains \"to production\"\n"
	if err := os.WriteFile(filepath.Join(dir, "wrong.mcp"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	deploy := filepath.Join(moduleRoot(t), "examples", "deployer", "deploy.mcp")
	report := filepath.Join(dir, "report.html")
	_, code := runBinary(t, bin, dir, "test", "-s", deploy, "-s", "wrong.mcp", "-c", filepath.Join(bin, "deployer"), "--html", report)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a step failed)", code)
	}
	b := openReport(t, report, "test-report")

	first := browsertest.Eval[map[string]any](b, `(() => {
		const s = document.querySelector("article.step");
		const r = s.getBoundingClientRect();
		return {where: s.dataset.where, failed: s.classList.contains("failed"), text: s.innerText, top: r.top, height: innerHeight};
	})()`)
	if first["where"] != "wrong.mcp:4:1" || first["failed"] != true {
		t.Errorf("the first step shown is %v (failed %v); want the failed wrong.mcp:4:1", first["where"], first["failed"])
	}
	text, _ := first["text"].(string)
	for _, want := range []string{"✗ failed", `assert_contains "to production"`, "expected", "to production", "got", "to staging"} {
		if !strings.Contains(text, want) {
			t.Errorf("the failed step does not show %q:\n%s", want, text)
		}
	}
	if top, h := first["top"].(float64), first["height"].(float64); top > h {
		t.Errorf("the failed step is below the fold (at %v of %v): a person must scroll to see it", top, h)
	}
	title := browsertest.Eval[string](b, `document.title`)
	if title != "mcp-tester test: 9 passed, 1 failed" {
		t.Errorf("title %q", title)
	}
	// The asking step of deploy.mcp shows the question and its answer.
	asked := browsertest.Eval[string](b, `[...document.querySelectorAll("article.step")].find(s => s.dataset.where.endsWith("deploy.mcp:2:1")).innerText`)
	for _, want := range []string{"Roll out auth-service version 2.4.1 – where to?", "accept", `"environment": "staging"`, "round 1"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the asking step does not show %q:\n%s", want, asked)
		}
	}
}

// A bench report draws throughput and latency over time and a latency
// histogram per round, with labelled axes; every figure on the charts is
// the JSON report's of the same run.
func TestHTMLReportOfBench(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "bench.html")
	out, code := runBinary(t, bin, dir, "bench", "deploy", "-c", filepath.Join(bin, "deployer"), "--args", `{"service":"auth-service"}`,
		"--elicit", `accept:{"environment":"production","confirm":true}`, "--concurrency", "4", "--requests", "300", "--format", "json", "--html", report)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var doc benchJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("the JSON report: %v\n%s", err, out)
	}
	if doc.Flows != 300 || len(doc.Rounds) != 2 || len(doc.Timeline) == 0 {
		t.Fatalf("JSON report: %d flows, %d rounds, %d slices", doc.Flows, len(doc.Rounds), len(doc.Timeline))
	}
	b := openReport(t, report, "bench-report")

	if got := browsertest.Eval[string](b, `document.getElementById("throughput").textContent`); got != fmt.Sprintf("%.1f", doc.FlowsPerSecond) {
		t.Errorf("throughput shown %q, JSON %v", got, doc.FlowsPerSecond)
	}
	if doc.Tester != nil && doc.Tester.CoreShare != nil {
		if got := browsertest.Eval[string](b, `document.getElementById("tester-share").textContent`); got != fmt.Sprintf("%.1f%%", 100**doc.Tester.CoreShare) {
			t.Errorf("tester share shown %q, JSON %v", got, *doc.Tester.CoreShare)
		}
	}
	// The latency table.
	rows := browsertest.Eval[[][]string](b, `[...document.querySelectorAll("table.latency tbody tr")].map(r => [...r.cells].map(c => c.textContent))`)
	series := append([]benchSummary{doc.Flow}, doc.Rounds...)
	if len(rows) != len(series) {
		t.Fatalf("latency rows %v, want %d", rows, len(series))
	}
	for i, s := range series {
		want := []string{strconv.Itoa(s.Count), ms3(s.MeanMs), ms3(s.P50Ms), ms3(s.P90Ms), ms3(s.P99Ms), ms3(s.MaxMs)}
		if strings.Join(rows[i][1:], " ") != strings.Join(want, " ") {
			t.Errorf("latency row %v, JSON %v", rows[i], want)
		}
	}
	// Each chart has its axes' titles and ticks.
	for _, id := range []string{"chart-throughput", "chart-latency", "histogram-flow", "histogram-round-1", "histogram-round-2"} {
		axes := browsertest.Eval[[]string](b, fmt.Sprintf(`(() => { const f = document.getElementById(%q); return [f.querySelector(".x-title").textContent, f.querySelector(".y-title").textContent, String(f.querySelectorAll(".x-ticks text").length), String(f.querySelectorAll(".y-ticks text").length)]; })()`, id))
		if axes[0] == "" || axes[1] == "" || axes[2] == "0" || axes[3] == "0" {
			t.Errorf("%s: axes %q: want both titled and with ticks", id, axes)
		}
	}
	// The points over time are the JSON's slices.
	dots := func(id string) []string {
		return browsertest.Eval[[]string](b, fmt.Sprintf(`[...document.querySelectorAll("#%s g.series.s1 circle title")].map(t => t.textContent)`, id))
	}
	tp := dots("chart-throughput")
	if len(tp) != len(doc.Timeline) {
		t.Fatalf("%d throughput points, %d slices in the JSON", len(tp), len(doc.Timeline))
	}
	lat := dots("chart-latency")
	k := 0
	for i, in := range doc.Timeline {
		sp := fmt.Sprintf("%.1f–%.1f s", in.StartMs/1000, in.EndMs/1000)
		if want := fmt.Sprintf("%s: %.1f flows/s (%d completed, %d failed)", sp, in.FlowsPerSecond, in.Flows, in.Failed); tp[i] != want {
			t.Errorf("throughput point %d says %q; the JSON %q", i, tp[i], want)
		}
		if in.Flows == 0 {
			continue
		}
		if k >= len(lat) {
			t.Fatalf("%d latency points, fewer than the slices with flows", len(lat))
		}
		if want := fmt.Sprintf("%s: p50 %s ms, p90 %s ms, p99 %s ms (%d flows)", sp, ms3(in.P50Ms), ms3(in.P90Ms), ms3(in.P99Ms), in.Flows); lat[k] != want {
			t.Errorf("latency point %d says %q; the JSON %q", k, lat[k], want)
		}
		k++
	}
	// The histograms' bars are the JSON's buckets: edges and counts.
	for i, s := range series {
		id := "histogram-flow"
		if i > 0 {
			id = fmt.Sprintf("histogram-round-%d", i)
		}
		bars := browsertest.Eval[[]string](b, fmt.Sprintf(`[...document.querySelectorAll("#%s g.bar title")].map(t => t.textContent)`, id))
		if len(bars) != len(s.Histogram) {
			t.Fatalf("%s: %d bars, %d buckets in the JSON", id, len(bars), len(s.Histogram))
		}
		total := 0
		for j, bk := range s.Histogram {
			total += bk.Count
			from, to, n := parseBar(t, bars[j])
			if from != bk.FromMs || to != bk.ToMs || n != bk.Count {
				t.Errorf("%s bar %d says %q (%v–%v ms: %d); the JSON %v–%v ms: %d", id, j, bars[j], from, to, n, bk.FromMs, bk.ToMs, bk.Count)
			}
		}
		if total != s.Count {
			t.Errorf("%s: the bars count %d of %d", id, total, s.Count)
		}
	}
}

type benchSummary struct {
	Count                              int
	MeanMs, P50Ms, P90Ms, P99Ms, MaxMs float64
	Histogram                          []struct {
		FromMs, ToMs float64
		Count        int
	}
}

type benchJSON struct {
	Flows          int
	FlowsPerSecond float64
	Flow           benchSummary
	Rounds         []benchSummary
	Tester         *struct{ CoreShare *float64 }
	Timeline       []struct {
		StartMs, EndMs, FlowsPerSecond, P50Ms, P90Ms, P99Ms float64
		Flows, Failed                                       int
	}
}

// ms3 is milliseconds as the report writes them.
func ms3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// parseBar reads a histogram bar's title, "800 µs–1 ms: 12", as
// milliseconds and a count.
func parseBar(t *testing.T, title string) (from, to float64, n int) {
	t.Helper()
	span, count, ok := strings.Cut(title, ": ")
	a, z, ok2 := strings.Cut(span, "–")
	if !ok || !ok2 {
		t.Fatalf("bar title %q", title)
	}
	n, err := strconv.Atoi(count)
	if err != nil {
		t.Fatalf("bar title %q: %v", title, err)
	}
	return toMs(t, a), toMs(t, z), n
}

func toMs(t *testing.T, s string) float64 {
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("edge %q: %v", s, err)
	}
	switch unit {
	case "µs":
		return v / 1e3
	case "ms":
		return v
	case "s":
		return v * 1e3
	}
	t.Fatalf("edge %q: unit %q", s, unit)
	return 0
}

// An audit report shows the failed rules first with their evidence, and a
// table of every subject against every rule, as the JSON report has them.
func TestHTMLReportOfAudit(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "audit.html")
	out, code := runBinary(t, bin, dir, "audit", "-c", filepath.Join(bin, "rulebreaker")+" -variant tamper", "--format", "json", "-q", "--html", report)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a rule failed)\n%s", code, out)
	}
	var doc struct {
		Subjects []struct {
			Kind, Name string
			Results    []struct {
				Rule     int
				Status   string
				Evidence []struct{ What, Sent, Got string }
			}
		}
		Score struct{ Passed, Failed int }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	b := openReport(t, report, "audit-report")
	first := browsertest.Eval[string](b, `document.querySelector("article.verdict").innerText`)
	if !strings.Contains(first, "✗ FAIL") || !strings.Contains(first, "rule 1 state-tamper") || !strings.Contains(first, "requestState tampered") {
		t.Errorf("the first verdict shown is not a failure of rule 1 with its evidence:\n%s", first)
	}
	failures := browsertest.Eval[int](b, `document.querySelectorAll("#failures article.verdict").length`)
	sent := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#failures pre.sent")].map(p => p.textContent)`)
	var wantSent []string
	for _, s := range doc.Subjects {
		for _, r := range s.Results {
			if r.Status == "fail" {
				for _, e := range r.Evidence {
					if e.Sent != "" {
						wantSent = append(wantSent, e.Sent)
					}
				}
			}
		}
	}
	if failures != doc.Score.Failed || strings.Join(sent, "\n") != strings.Join(wantSent, "\n") {
		t.Errorf("%d failures with %d requests shown; the JSON has %d with %d", failures, len(sent), doc.Score.Failed, len(wantSent))
	}
	cells := browsertest.Eval[int](b, `document.querySelectorAll("#matrix td a").length`)
	want := 0
	for _, s := range doc.Subjects {
		want += len(s.Results)
	}
	if cells != want {
		t.Errorf("%d verdicts in the table, %d in the JSON", cells, want)
	}
}

// Against a server with hundreds of tools that ask nothing, the table of
// an audit is as short as its text report: those tools are one row, each
// named in a list that opens, and one verdict of each rule; the tools that
// ask keep their rows, with a verdict behind every cell.
func TestHTMLReportOfAuditFoldsWhatAsksNothing(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "audit.html")
	out, code := runBinary(t, bin, dir, "audit", "-c", filepath.Join(bin, "manytools"), "--args", `lookup_customer={"name":"ada"}`, "--format", "json", "-q", "--html", report)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	var doc struct {
		Subjects []struct {
			Kind, Name, Skipped, NotCalled string
			Asks                           bool
			Results                        []struct{ Status string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var quiet []string
	shown, links, reasons := 0, 0, map[string]bool{}
	for _, s := range doc.Subjects {
		allNA := len(s.Results) > 0
		for _, r := range s.Results {
			allNA = allNA && r.Status == "n/a"
		}
		switch {
		case s.Skipped != "":
			reason, _, _ := strings.Cut(s.Skipped, "; pass ")
			reasons[reason] = true
		case s.Kind != "server" && s.NotCalled == "" && !s.Asks && allNA:
			quiet = append(quiet, fmt.Sprintf("%s %q", s.Kind, s.Name))
		default:
			shown++
			links += len(s.Results)
		}
	}
	if len(quiet) < 100 {
		t.Fatalf("only %d tools ask nothing; the fixture should offer more than a hundred", len(quiet))
	}
	b := openReport(t, report, "audit-folded")
	if rows, want := browsertest.Eval[int](b, `document.querySelectorAll("#matrix tbody tr").length`), shown+1+len(reasons); rows != want {
		t.Errorf("%d rows in the table, want %d: %d subjects that ask or the server, one for the %d that ask nothing, one per reason of skipping", rows, want, shown, len(quiet))
	}
	if n := browsertest.Eval[int](b, `document.querySelectorAll("#matrix td a").length`); n != links {
		t.Errorf("%d verdicts in the table, want %d (those of the subjects not folded)", n, links)
	}
	summary := browsertest.Eval[string](b, `document.querySelector("#asks-nothing summary").textContent`)
	if want := fmt.Sprintf("asks nothing (%d): %s, %s, %s, and %d more", len(quiet), quiet[0], quiet[1], quiet[2], len(quiet)-3); summary != want {
		t.Errorf("the folded row says %q, want %q", summary, want)
	}
	if browsertest.Eval[bool](b, `document.querySelector("#asks-nothing details").open`) {
		t.Error("the list of what asks nothing is open before it is clicked")
	}
	names := browsertest.Eval[[]string](b, `document.querySelector("#asks-nothing summary").click(), [...document.querySelectorAll("#asks-nothing li")].filter(li => li.offsetParent !== null).map(li => li.textContent)`)
	if strings.Join(names, "\n") != strings.Join(quiet, "\n") {
		t.Errorf("the opened list shows %d names, want the %d that ask nothing in order", len(names), len(quiet))
	}
	if n := browsertest.Eval[int](b, `document.querySelectorAll("#rules tr.verdict.folded a[href='#asks-nothing']").length`); n != 11 {
		t.Errorf("%d rules with one verdict for what asks nothing, want 11", n)
	}
}

// An inspect report shows the score and each criterion's points, as the
// JSON report has them, and every finding with its advice.
func TestHTMLReportOfInspect(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "inspect.html")
	out, _ := runBinary(t, bin, dir, "inspect", "-c", filepath.Join(bin, "manytools")+" -variant poor", "--format", "json", "--html", report)
	var doc struct {
		Score    int
		Criteria []struct {
			ID       string
			Weight   int
			Points   float64
			Applies  bool
			Findings []struct{ Subject, Problem, Advice string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	b := openReport(t, report, "inspect-report")
	if got := browsertest.Eval[string](b, `document.getElementById("score").textContent`); got != fmt.Sprintf("%d/100", doc.Score) {
		t.Errorf("score shown %q, JSON %d", got, doc.Score)
	}
	rows := browsertest.Eval[[][]string](b, `[...document.querySelectorAll("tr.criterion")].map(r => [r.dataset.id, r.cells[1].textContent, r.cells[3].textContent])`)
	advice := browsertest.Eval[[]string](b, `[...document.querySelectorAll("p.advice")].map(p => p.textContent)`)
	if len(rows) != len(doc.Criteria) {
		t.Fatalf("%d criteria shown, %d in the JSON", len(rows), len(doc.Criteria))
	}
	var wantAdvice []string
	for i, c := range doc.Criteria {
		points := "n/a"
		if c.Applies {
			points = fmt.Sprintf("%s/%d", strconv.FormatFloat(c.Points, 'f', -1, 64), c.Weight)
		}
		if want := []string{c.ID, points, strconv.Itoa(len(c.Findings))}; strings.Join(rows[i], " ") != strings.Join(want, " ") {
			t.Errorf("criterion row %q, JSON %q", rows[i], want)
		}
		for _, f := range c.Findings {
			wantAdvice = append(wantAdvice, "→ "+f.Advice)
		}
	}
	if len(wantAdvice) == 0 || strings.Join(advice, "\n") != strings.Join(wantAdvice, "\n") {
		t.Errorf("advice shown:\n%s\nJSON:\n%s", strings.Join(advice, "\n"), strings.Join(wantAdvice, "\n"))
	}
}

// What a hostile server sends (script and image elements, escape
// sequences, bidi overrides in every field) reaches every report as text a
// person reads, escaped: no element of it, no raw control character.
func TestHTMLReportsOfAHostileServer(t *testing.T) {
	bin := reportBinaries(t)
	dir := t.TempDir()
	hostile := filepath.Join(bin, "hostile")
	if err := os.WriteFile(filepath.Join(dir, "hostile.mcp"), []byte("elicit_response accept\nelicit_response accept\ncall_tool ask\nassert_contains \"something the server never says\"\ncall_tool content\ncall_tool fail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := map[string][]string{
		"test":    {"test", "hostile.mcp", "-c", hostile},
		"audit":   {"audit", "--include", "*", "--timeout", "10s", "-q", "-c", hostile},
		"inspect": {"inspect", "--probe", "-c", hostile},
		"bench":   {"bench", "fail", "--requests", "2", "-c", hostile},
	}
	for _, name := range []string{"test", "audit", "inspect", "bench"} {
		t.Run(name, func(t *testing.T) {
			report := filepath.Join(dir, name+".html")
			runBinary(t, bin, dir, append(runs[name], "--html", report)...)
			page, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			// The page's own markup has no script; the server's is text.
			if bytes.Contains(page, []byte("<script")) || bytes.Contains(page, []byte("<img")) {
				t.Errorf("the page holds the server's markup as markup")
			}
			if !bytes.Contains(page, []byte("&lt;script&gt;")) {
				t.Errorf("the page does not show the server's markup as text")
			}
			b := openReport(t, report, name+"-hostile")
			seen := browsertest.Eval[map[string]any](b, `({
				title: document.title,
				elements: document.querySelectorAll("script, img").length,
				handlers: [...document.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
				text: document.body.innerText,
			})`)
			if seen["elements"].(float64) != 0 || seen["handlers"].(float64) != 0 || strings.Contains(seen["title"].(string), "pwned") {
				t.Errorf("the server's markup became the page's: %v elements, %v handlers, title %q", seen["elements"], seen["handlers"], seen["title"])
			}
			text := seen["text"].(string)
			if strings.ContainsAny(text, "\x1b\u202e\u2066\u200b\u009b\x07\x7f") {
				t.Errorf("a raw control or bidi character reached the page's text")
			}
			for _, want := range []string{`\x1b[2J`, `\u202e`, `<script>document.title="pwned"</script>`} {
				if !strings.Contains(text, want) {
					t.Errorf("the page does not show %q as text", want)
				}
			}
		})
	}
}
