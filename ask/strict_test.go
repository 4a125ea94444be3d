package ask_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckMessage(t *testing.T) {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy",` + params + `}}`
	}
	for _, c := range []struct {
		name, msg, refused string // refused: a part of the error, "" for none
	}{
		{"plain answer", call(`"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"s"`), ""},
		{"no answers", call(`"arguments":{"a":1,"A":2}`), ""},
		{"not JSON", `{"jsonrpc":`, ""},
		{"two JSON values", call(``) + call(``), ""},
		{"action twice", call(`"inputResponses":{"confirm":{"action":"decline","action":"accept","content":{"confirm":true}}}`), `key "action" appears twice in the object at $.params.inputResponses.confirm`},
		{"question key twice", call(`"inputResponses":{"confirm":{"action":"decline"},"confirm":{"action":"accept"}}`), `key "confirm" appears twice in the object at $.params.inputResponses`},
		{"Action and action", call(`"inputResponses":{"confirm":{"action":"decline","Action":"accept"}}`), `inputResponses["confirm"]: ambiguous JSON object: keys "action" and "Action" differ only in letter case`},
		{"ACTION alone", call(`"inputResponses":{"confirm":{"ACTION":"accept"}}`), `inputResponses["confirm"]: its keys are not spelled as the protocol spells them`},
		{"ROLE for role", call(`"inputResponses":{"q":{"ROLE":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`), "not spelled as the protocol spells them"},
		{"a root's URI", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"r":{"roots":[{"URI":"file:///etc"}]}}}}`, "not spelled as the protocol spells them"},
		{"Content alone", call(`"inputResponses":{"confirm":{"action":"accept","Content":{"confirm":true}}}`), "not spelled as the protocol spells them"},
		{"content keys in two cases", call(`"inputResponses":{"confirm":{"action":"accept","content":{"confirm":false,"Confirm":true}}}`), `differ only in letter case in the object at $.content`},
		{"inputResponses twice", call(`"inputResponses":{"confirm":{"action":"decline"}},"inputResponses":{"confirm":{"action":"accept"}}`), `key "inputResponses" appears twice`},
		{"a tool's name twice", call(`"name":"other"`), `key "name" appears twice in the object at $.params`},
		{"prompts/get", `{"jsonrpc":"2.0","id":"p","method":"prompts/get","params":{"name":"p","inputResponses":{"q":{"action":"accept","action":"decline"}}}}`, `key "action" appears twice`},
		{"resources/read", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x:y","inputResponses":{"q":{"action":"accept","ACTION":"decline"}}}}`, "differ only in letter case"},
		{"tasks/update", `{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"t","inputResponses":{"q":{"action":"decline"},"q":{"action":"accept"}}}}`, `key "q" appears twice`},
		{"an elicitation answer in two cases", `{"jsonrpc":"2.0","id":7,"result":{"action":"decline","Action":"accept"}}`, `the result: ambiguous JSON object: keys "action" and "Action"`},
		{"an elicitation answer", `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"a":1}}}`, ""},
		{"in a batch", `[` + call(`"arguments":{}`) + `,` + call(`"inputResponses":{"q":{"action":"a","Action":"b"}}`) + `]`, "message 1 of the batch"},
	} {
		err := ask.CheckMessage([]byte(c.msg))
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v, want it passed", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !errors.Is(err, ask.ErrAmbiguous)):
			t.Errorf("%s: %v, want ErrAmbiguous with %q", c.name, err, c.refused)
		}
	}
}

// rawPeer talks to a server over StrictIO (or the go-sdk's own IOTransport)
// with lines written as they are.
type rawPeer struct {
	in  *io.PipeWriter
	out *bufio.Reader
}

func (p *rawPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *rawPeer) recv(t *testing.T) string {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := p.out.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return strings.TrimSpace(r.line)
	case <-time.After(10 * time.Second):
		t.Fatal("no answer from the server")
	}
	return ""
}

// serve runs a server with a deploy tool that deploys when its "confirm"
// question is accepted, over StrictIO or the plain IOTransport, and returns
// a peer and how often the tool deployed.
func serve(t *testing.T, strict bool) (*rawPeer, *atomic.Int32) {
	t.Helper()
	var deployed atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, ok := ask.Lookup(req.Params.InputResponses, "confirm")
		if ok && a.Accepted() {
			deployed.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not deployed"}}}, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var tr mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
	if strict {
		tr = ask.StrictIO(inR, outW)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, tr)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	p := &rawPeer{in: inW, out: bufio.NewReader(outR)}
	p.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p, &deployed
}

// Answers that decline and then accept under one key are taken last-wins
// by the go-sdk (deployed); over StrictIO they are refused before the
// go-sdk reads them, and the tool never runs with them.
func TestStrictIORefusesAmbiguousAnswers(t *testing.T) {
	twice := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"deploy","inputResponses":{"confirm":{"action":"decline"},"confirm":{"action":"accept"}}}}`
	inside := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"deploy","inputResponses":{"confirm":{"action":"decline","action":"accept"}}}}`
	folded := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","inputResponses":{"confirm":{"action":"decline","Action":"accept"}}}}`

	plain, deployed := serve(t, false)
	for _, m := range []string{twice, inside, folded} {
		plain.send(t, m)
		plain.recv(t)
	}
	if deployed.Load() != 3 {
		t.Fatalf("the go-sdk alone deployed %d of 3 ambiguous answers: the attack no longer applies", deployed.Load())
	}

	strict, deployed := serve(t, true)
	for _, c := range []struct{ msg, want string }{
		{twice, `"id":5,"error":{"code":-32602,"message":"ambiguous message: ambiguous JSON object: key \"confirm\" appears twice in the object at $.params.inputResponses; send each key once, as written"}`},
		{inside, `"id":6,"error":{"code":-32602,"message":"ambiguous message: ambiguous JSON object: key \"action\" appears twice in the object at $.params.inputResponses.confirm`},
		{folded, `"id":7,"error":{"code":-32602,"message":"ambiguous message: inputResponses[\"confirm\"]: ambiguous JSON object: keys \"action\" and \"Action\" differ only in letter case`},
	} {
		strict.send(t, c.msg)
		if got := strict.recv(t); !strings.Contains(got, c.want) {
			t.Errorf("answer %s, want %s", got, c.want)
		}
	}
	if n := deployed.Load(); n != 0 {
		t.Errorf("%d ambiguous answers deployed over StrictIO", n)
	}
	// A plain answer still works, on the same connection.
	strict.send(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"deploy","inputResponses":{"confirm":{"action":"accept"}}}}`)
	if got := strict.recv(t); !strings.Contains(got, "deployed") || strings.Contains(got, "not deployed") || deployed.Load() != 1 {
		t.Errorf("a plain answer: %s (deployed %d)", got, deployed.Load())
	}
	// What the go-sdk would refuse reaches it as it came.
	strict.send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nosuch"}}`)
	if got := strict.recv(t); !strings.Contains(got, `"id":9`) || !strings.Contains(got, "nosuch") {
		t.Errorf("an unknown tool: %s", got)
	}
}

// Refuse answers the id the go-sdk reads ("ID" is another key), and tells
// a request from a response by the method the go-sdk reads.
func TestRefuseReadsTheIDAsTheSDK(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"ID":2,"method":"tools/call","params":{"name":"deploy","inputResponses":{"confirm":{"action":"decline"},"confirm":{"action":"accept"}}}}`)
	err := ask.CheckMessage(msg)
	if err == nil {
		t.Fatal("CheckMessage took an answer given twice")
	}
	ref := ask.Refuse(msg, err)
	if !strings.Contains(string(ref.Reply), `"id":1,`) || ref.Replace != nil {
		t.Errorf("Refuse: reply %s, replace %s; want an error reply to id 1", ref.Reply, ref.Replace)
	}
	answer := []byte(`{"jsonrpc":"2.0","id":3,"Method":"x","result":{"action":"decline","action":"accept"}}`)
	err = ask.CheckMessage(answer)
	if err == nil {
		t.Fatal("CheckMessage took an answer with action twice")
	}
	if ref := ask.Refuse(answer, err); ref.Reply != nil || !strings.Contains(string(ref.Replace), `"id":3,"error"`) {
		t.Errorf("Refuse of a response: reply %s, replace %s; want an error response in its place", ref.Reply, ref.Replace)
	}
}

// The answer to a server's elicitation/create (protocol 2025-11-25) is
// checked too: an ambiguous one reaches the go-sdk as an error response,
// so that the handler's question fails at once.
func TestStrictIORefusesAnAmbiguousElicitationAnswer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	got := make(chan string, 1)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Deploy?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
		if err != nil {
			got <- "error: " + err.Error()
		} else {
			got <- "action: " + res.Action
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Run(ctx, ask.StrictIO(inR, outW)) }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	p := &rawPeer{in: inW, out: bufio.NewReader(outR)}
	p.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}`)
	question := p.recv(t) // {"jsonrpc":"2.0","id":N,"method":"elicitation/create",...}
	id := question[strings.Index(question, `"id":`)+5:]
	id = id[:strings.IndexAny(id, ",}")]
	p.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"decline","action":"accept"}}`)
	select {
	case g := <-got:
		if !strings.Contains(g, `error: `) || !strings.Contains(g, `key \"action\" appears twice`) && !strings.Contains(g, `key "action" appears twice`) {
			t.Errorf("the handler's question: %s, want an error naming the repeated key", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's question did not end")
	}
	p.recv(t) // the call's result
}

// Whatever CheckMessage lets through, the go-sdk's reading of each answer
// (mcp.InputResponseMap, encoding/json inside) is the reading of a decoder
// that matches keys as written: the same kind of answer, the same
// elicitation result.
func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"decline","Action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"ACTION":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"accept","Content":{"a":1}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"decline"},"q":{"action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"\u0061ction":"accept","_Meta":{}}}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"k":1,"\u212a":2}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ask.CheckMessage(data) != nil {
			return
		}
		var raw struct {
			Params struct {
				InputResponses map[string]json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		if strictjson.DecodeAsSDK(data, &raw) != nil {
			return
		}
		for key, answer := range raw.Params.InputResponses {
			var sdk mcp.InputResponseMap
			one, _ := json.Marshal(map[string]json.RawMessage{key: answer})
			if json.Unmarshal(one, &sdk) != nil {
				continue
			}
			loose, isElicit := sdk[key].(*mcp.ElicitResult)
			var exact map[string]json.RawMessage
			if strictjson.DecodeAsSDK(answer, &exact) != nil {
				continue
			}
			if _, hasAction := exact["action"]; hasAction != isElicit && exact["roots"] == nil && exact["role"] == nil {
				t.Fatalf("%s: inputResponses[%q]: the go-sdk reads an elicitation result %v, a reader of keys as written %v", data, key, isElicit, hasAction)
			}
			if !isElicit {
				continue
			}
			var e mcp.ElicitResult
			if strictjson.DecodeAsSDK(answer, &e) != nil {
				continue
			}
			a, _ := json.Marshal(loose)
			b, _ := json.Marshal(&e)
			if string(a) != string(b) {
				t.Fatalf("%s: inputResponses[%q]: the go-sdk reads %s, a reader of keys as written %s", data, key, a, b)
			}
		}
	})
}
