package inspect_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func boolp(b bool) *bool { return &b }

func info(proto string, icons ...mcp.Icon) *mcp.InitializeResult {
	return &mcp.InitializeResult{ProtocolVersion: proto, ServerInfo: &mcp.Implementation{Name: "s", Version: "1", Icons: icons}}
}

func good() *inspect.Server {
	icon := mcp.Icon{Source: "data:image/png;base64,iVBORw0KGgo=", MIMEType: "image/png"}
	return &inspect.Server{Listing: catalog.Listing{
		Info: info(inspect.Latest, icon),
		Tools: []*mcp.Tool{{
			Name: "search", Title: "Search", Description: "Searches the catalogue and returns matching items.",
			InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": "What to look for."}}},
			OutputSchema: map[string]any{"type": "object"},
			Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, {
			Name: "delete_item", Title: "Delete", Description: "Deletes an item. Asks the user to confirm first.",
			InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string", "description": "The item."}}},
			OutputSchema: map[string]any{"type": "object"},
			Annotations:  &mcp.ToolAnnotations{DestructiveHint: boolp(true)},
		}},
		Prompts: []*mcp.Prompt{{Name: "p", Description: "Does a thing.", Arguments: []*mcp.PromptArgument{{Name: "x", Description: "The x."}}}},
	}}
}

func poor() *inspect.Server {
	empty := map[string]any{"type": "object"}
	return &inspect.Server{Listing: catalog.Listing{
		Info:  info("2025-03-26"),
		Tools: []*mcp.Tool{{Name: "a", InputSchema: empty}, {Name: "rm", InputSchema: empty}, {Name: "purge_all", Description: "purge", InputSchema: empty, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}},
	}}
}

func criterion(r *inspect.Report, id string) inspect.Criterion {
	for _, c := range r.Criteria {
		if c.ID == id {
			return c
		}
	}
	return inspect.Criterion{}
}

func TestGoodAndPoorScoreApartForTheStatedReasons(t *testing.T) {
	g, p := inspect.Evaluate(good()), inspect.Evaluate(poor())
	if g.Score != 100 {
		t.Errorf("good server scored %d, want 100; criteria: %+v", g.Score, g.Criteria)
	}
	if p.Score > 25 {
		t.Errorf("poor server scored %d, want at most 25", p.Score)
	}
	for _, id := range []string{inspect.CritDescriptions, inspect.CritOutput, inspect.CritAnnotations, inspect.CritTitles, inspect.CritPrompts, inspect.CritIcons, inspect.CritProtocol} {
		c := criterion(p, id)
		if c.Points >= float64(c.Weight) || len(c.Findings) == 0 {
			t.Errorf("poor server: criterion %s = %v/%d with findings %v; want a loss with a reason", id, c.Points, c.Weight, c.Findings)
		}
		for _, f := range c.Findings {
			if f.Problem == "" || f.Advice == "" {
				t.Errorf("finding without problem or advice: %+v", f)
			}
		}
	}
	ann := criterion(p, inspect.CritAnnotations)
	text, _ := json.Marshal(ann.Findings)
	for _, want := range []string{`tool \"rm\"`, "looks destructive", `tool \"purge_all\"`, "marked read-only"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("annotation findings %s do not mention %s", text, want)
		}
	}
}

func TestElicitationCountsOnlyWhatWasSeenAsking(t *testing.T) {
	s := good()
	if c := criterion(inspect.Evaluate(s), inspect.CritElicitation); c.Applies {
		t.Errorf("without probes nothing was seen asking, so the criterion should not apply: %+v", c)
	}
	s.Probes = []inspect.Probe{{Tool: "search", Questions: []inspect.Question{{Key: "which", Mode: "form", Message: "Which catalogue?"}}}}
	r := inspect.Evaluate(s)
	c := criterion(r, inspect.CritElicitation)
	if !c.Applies || c.Points != 0 || len(c.Findings) != 1 || !strings.Contains(c.Findings[0].Problem, "does not say so") {
		t.Errorf("a tool that asks without saying so should lose the criterion: %+v", c)
	}
	names := []string{}
	for _, et := range r.Elicit.Tools {
		names = append(names, et.Name)
	}
	if strings.Join(names, ",") != "delete_item,search" {
		t.Errorf("eliciting tools = %v, want delete_item (says so) and search (asked)", names)
	}

	// A prompt that asks without saying so is a finding too.
	s.Probes = append(s.Probes, inspect.Probe{Prompt: "p", Questions: []inspect.Question{{Key: "k", Mode: "form", Message: "Which?"}}})
	r = inspect.Evaluate(s)
	c = criterion(r, inspect.CritElicitation)
	if len(r.Elicit.Prompts) != 1 || c.Points != 0 || len(c.Findings) != 2 || c.Findings[1].Subject != `prompt "p"` {
		t.Errorf("prompt probes: %+v; criterion %+v", r.Elicit.Prompts, c)
	}
}

func TestManyFindingsAreGrouped(t *testing.T) {
	s := &inspect.Server{Listing: catalog.Listing{Info: info(inspect.Latest)}}
	for i := 0; i < 50; i++ {
		s.Tools = append(s.Tools, &mcp.Tool{Name: strings.Repeat("x", i+1), InputSchema: map[string]any{"type": "object"}})
	}
	c := criterion(inspect.Evaluate(s), inspect.CritDescriptions)
	if len(c.Findings) != 1 || !strings.Contains(c.Findings[0].Subject, "50 tools") || !strings.Contains(c.Findings[0].Subject, "and 45 more") {
		t.Errorf("findings = %+v, want one grouped finding", c.Findings)
	}
}

func TestCheckIcons(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	mux := http.NewServeMux()
	mux.HandleFunc("/ok.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>hi</html>"))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(make([]byte, inspect.MaxIconBytes+10))
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	dir := t.TempDir()
	icons := []inspect.OwnedIcon{
		{Owner: "server", Icon: mcp.Icon{Source: ts.URL + "/ok.png"}},
		{Owner: "tool a", Icon: mcp.Icon{Source: ts.URL + "/page"}},
		{Owner: "tool b", Icon: mcp.Icon{Source: ts.URL + "/missing"}},
		{Owner: "tool c", Icon: mcp.Icon{Source: ts.URL + "/huge"}},
		{Owner: "tool d", Icon: mcp.Icon{Source: "file:///etc/passwd"}},
		{Owner: "tool e", Icon: mcp.Icon{Source: ts.URL + "/to-file"}},
		{Owner: "tool f", Icon: mcp.Icon{Source: "data:image/png;base64,iVBORw0KGgo="}},
		{Owner: "tool g", Icon: mcp.Icon{Source: ts.URL + "/ok.png?name=../../../escape.png"}},
	}
	// (The server's own address is fetched from even on loopback.)
	got := inspect.CheckIcons(context.Background(), icons, inspect.IconOptions{Dir: dir, ServerURL: ts.URL})
	want := []bool{true, false, false, false, false, false, true, true}
	for i, c := range got {
		if c.OK != want[i] {
			t.Errorf("%s (%s): ok=%v problem=%q, want ok=%v", c.Owner, c.Source, c.OK, c.Problem, want[i])
		}
		if c.OK && (c.File == "" || filepath.Dir(c.File) != dir) {
			t.Errorf("%s saved as %q, want a file directly in %s", c.Owner, c.File, dir)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "escape.png")); err == nil {
		t.Error("an icon URL chose a file outside the directory")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("saved %d files, want 3", len(entries))
	}
}

// A server cannot have the tester reach its host's private addresses: an
// icon on loopback (by address or by a name that resolves to it), on a
// link-local or private address, or behind a redirect from a public-looking
// place to one, is refused at the address dialed, and nothing of it is
// saved. Only the server's own address is fetched from.
func TestCheckIconsReachNoPrivateAddress(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	var fetched atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	}))
	defer private.Close()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/icon.png", http.StatusFound)
	}))
	defer own.Close()
	_, port, _ := net.SplitHostPort(private.Listener.Addr().String())
	dir := t.TempDir()
	icons := []inspect.OwnedIcon{
		{Owner: "loopback", Icon: mcp.Icon{Source: private.URL + "/icon.png"}},
		{Owner: "by name", Icon: mcp.Icon{Source: "http://localhost:" + port + "/icon.png"}},
		{Owner: "mapped", Icon: mcp.Icon{Source: "http://[::ffff:127.0.0.1]:" + port + "/icon.png"}},
		{Owner: "redirected", Icon: mcp.Icon{Source: own.URL + "/to-private"}},
		{Owner: "link-local", Icon: mcp.Icon{Source: "http://169.254.169.254/latest/meta-data/"}},
		{Owner: "private", Icon: mcp.Icon{Source: "http://10.0.0.1/icon.png"}},
		{Owner: "unspecified", Icon: mcp.Icon{Source: "http://0.0.0.0:" + port + "/icon.png"}},
	}
	got := inspect.CheckIcons(context.Background(), icons, inspect.IconOptions{Dir: dir, ServerURL: own.URL})
	for _, c := range got {
		if c.OK || !strings.Contains(c.Problem, "refused") {
			t.Errorf("%s (%s): ok=%v problem=%q, want refused", c.Owner, c.Source, c.OK, c.Problem)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the private server was fetched from %d time(s)", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("saved %v", entries)
	}
}

// Evaluate takes any schema a server sends.
func FuzzEvaluateSchemas(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"required":[1,null,"x"]}`, `[]`, `{"properties":{"a":{"oneOf":[{"oneOf":[{}]}]}},"required":["a"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		inspect.Evaluate(&inspect.Server{Listing: catalog.Listing{Tools: []*mcp.Tool{{Name: "t", InputSchema: v, OutputSchema: v}}}})
	})
}

func FuzzDataIcon(f *testing.F) {
	for _, s := range []string{"data:image/png;base64,iVBORw0KGgo=", "data:,", "data:image/svg+xml,%3Csvg%3E", "data:;base64,!!", "data:text/html,<b>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !strings.HasPrefix(s, "data:") {
			s = "data:" + s
		}
		got := inspect.CheckIcons(context.Background(), []inspect.OwnedIcon{{Owner: "x", Icon: mcp.Icon{Source: s}}}, inspect.IconOptions{})
		if len(got) != 1 {
			t.Fatalf("CheckIcons returned %d results for one icon", len(got))
		}
		if got[0].OK && (got[0].MIMEType == "" || !strings.HasPrefix(got[0].MIMEType, "image/")) {
			t.Fatalf("%q passed as %q", s, got[0].MIMEType)
		}
		if !got[0].OK && got[0].Problem == "" {
			t.Fatalf("%q failed without a problem", s)
		}
	})
}

// The capabilities declared are named as the server sent them, those the
// go-sdk does not know (tasks) too.
func TestDeclaresEveryCapabilitySent(t *testing.T) {
	s := &inspect.Server{Listing: catalog.Listing{Info: info(inspect.Latest), Sent: catalog.Sent{Capabilities: json.RawMessage(
		`{"logging":{},"tools":{"listChanged":false},"resources":{"listChanged":true,"subscribe":true},` +
			`"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"experimental":{"x":{}},"extensions":{"io.example/y":{}},"off":false}`)}}}
	got := strings.Join(inspect.Evaluate(s).Declares, ", ")
	want := "tools, resources (subscribe, listChanged), logging, experimental x, extension io.example/y, tasks (cancel, list, requests)"
	if got != want {
		t.Errorf("declares %q, want %q", got, want)
	}
}

// A server of protocol 2026-07-28 whose list results carry no cacheScope,
// an empty one or one the protocol does not define draws a finding per
// list that names the value sent and what is required; "public" and
// "private" draw none, and a server of an earlier protocol, whose lists
// have no such member, none either.
func TestListCacheScope(t *testing.T) {
	s := good()
	s.Sent.CacheScopes = map[string]json.RawMessage{
		"tools/list":               nil,
		"prompts/list":             json.RawMessage(`""`),
		"resources/list":           json.RawMessage(`"shared"`),
		"resources/templates/list": json.RawMessage(`"private"`),
	}
	var got []inspect.Finding
	for _, c := range inspect.Evaluate(s).Criteria {
		if c.ID == inspect.CritProtocol {
			got = c.Findings
			if c.Points != 5 {
				t.Errorf("protocol: %v points, want 5 of 10", c.Points)
			}
		}
	}
	want := map[string]string{"tools/list": "no cacheScope", "prompts/list": `cacheScope ""`, "resources/list": `cacheScope "shared"`}
	if len(got) != len(want) {
		t.Fatalf("findings %+v, want one for each of %v", got, want)
	}
	for _, f := range got {
		if !strings.Contains(f.Problem, "the result has "+want[f.Subject]+":") || !strings.Contains(f.Problem, `requires "cacheScope": "public" or "private"`) {
			t.Errorf("%s: %q", f.Subject, f.Problem)
		}
	}
	s.Info = info("2025-11-25")
	for _, c := range inspect.Evaluate(s).Criteria {
		for _, f := range c.Findings {
			if strings.Contains(f.Problem, "cacheScope") {
				t.Errorf("a server of 2025-11-25: %s: %s", f.Subject, f.Problem)
			}
		}
	}
}
