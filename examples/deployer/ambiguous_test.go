package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// stdioPeer is the deployer process over stdio, spoken to with raw lines.
type stdioPeer struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdio(t *testing.T) *stdioPeer {
	t.Helper()
	cmd := exec.Command(filepath.Join(testbin.Need(t, "./examples/deployer"), "deployer"))
	cmd.Env = append(cmd.Environ(), "DEPLOY_STATE_KEY="+strings.Repeat("k", 32))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	p := &stdioPeer{in: in, out: bufio.NewReader(out)}
	p.roundTrip(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	return p
}

// roundTrip sends one line and returns the answer.
func (p *stdioPeer) roundTrip(t *testing.T, line string) map[string]any {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		l, _ := p.out.ReadString('\n')
		got <- l
	}()
	select {
	case l := <-got:
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		return m
	case <-time.After(time.Minute): // against a hang: the first answer waits for the process to start
		t.Fatal("no answer from the deployer within a minute")
	}
	return nil
}

const deployMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// deployRound1 asks the deploy tool and returns its requestState.
func deployRound1(t *testing.T, send func(string) map[string]any) string {
	t.Helper()
	m := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + deployMeta + `,"name":"deploy","arguments":{"service":"api"}}}`)
	res, _ := m["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Fatalf("round 1: %v", m)
	}
	return state
}

// Answers that decline and then accept the deployment are refused with
// -32602 before the go-sdk reads them (it would take the accept): nothing
// is deployed. The same conversation with one answer deploys.
func TestAmbiguousAnswersDeployNothingOverStdio(t *testing.T) {
	p := startStdio(t)
	send := func(line string) map[string]any { return p.roundTrip(t, line) }
	accept := `{"action":"accept","content":{"environment":"production","confirm":true}}`
	for _, responses := range []string{
		`{"target":{"action":"decline"},"target":` + accept + `}`,
		`{"target":{"action":"decline","action":"accept","content":{"environment":"production","confirm":true}}}`,
		`{"target":{"action":"decline","Action":"accept","content":{"environment":"production","confirm":true}}}`,
		`{"target":{"ACTION":"accept","content":{"environment":"production","confirm":true}}}`,
	} {
		state := deployRound1(t, send)
		m := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + deployMeta + `,"name":"deploy","arguments":{"service":"api"},"inputResponses":` + responses + `,"requestState":"` + state + `"}}`)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "ambiguous message") {
			t.Errorf("inputResponses %s: %v, want -32602 ambiguous message", responses, m)
		}
	}
	state := deployRound1(t, send)
	m := send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + deployMeta + `,"name":"deploy","arguments":{"service":"api"},"inputResponses":{"target":` + accept + `},"requestState":"` + state + `"}}`)
	if b, _ := json.Marshal(m); !strings.Contains(string(b), "Rolling out api 2.4.1 to production.") {
		t.Errorf("one answer: %s", b)
	}
}

// Over HTTP (endpoint) the same answers are refused the same way.
func TestAmbiguousAnswersDeployNothingOverHTTP(t *testing.T) {
	srv, err := newServer(strings.Repeat("k", 32), memoryStores(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpHandler(srv, nil))
	t.Cleanup(hs.Close)
	send := func(body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "deploy")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		s := string(b)
		if i := strings.Index(s, "{"); i >= 0 {
			s = s[i:]
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &m); err != nil {
			t.Fatalf("answer %q: %v", b, err)
		}
		return m
	}
	state := deployRound1(t, send)
	m := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + deployMeta + `,"name":"deploy","arguments":{"service":"api"},"inputResponses":{"target":{"action":"decline"},"target":{"action":"accept","content":{"environment":"production","confirm":true}}},"requestState":"` + state + `"}}`)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Errorf("decline then accept over HTTP: %v, want -32602", m)
	}
}
