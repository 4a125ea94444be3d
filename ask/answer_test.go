//lint:file-ignore SA1019 sampling and roots are deprecated but still part of the protocol; clients may declare them.

package ask_test

import (
	"encoding/json"
	"testing"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func responses(t testing.TB, js string) mcp.InputResponseMap {
	var m mcp.InputResponseMap
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLookup(t *testing.T) {
	r := responses(t, `{
		"ok": {"action":"accept","content":{"env":"prod","confirm":true,"n":3,"tags":["a","b"],"mixed":["a",1]}},
		"no": {"action":"decline","content":{"env":"ignored"}},
		"bye": {"action":"cancel"},
		"odd": {"action":"maybe"},
		"sampled": {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"},
		"roots": {"roots":[]}
	}`)
	a, ok := ask.Lookup(r, "ok")
	if !ok || !a.Accepted() {
		t.Fatalf("Lookup(ok) = %+v, %v", a, ok)
	}
	if s, ok := a.Text("env"); !ok || s != "prod" {
		t.Errorf("String(env) = %q, %v", s, ok)
	}
	if b, ok := a.Bool("confirm"); !ok || !b {
		t.Errorf("Bool(confirm) = %v, %v", b, ok)
	}
	if n, ok := a.Number("n"); !ok || n != 3 {
		t.Errorf("Number(n) = %v, %v", n, ok)
	}
	if s, ok := a.Strings("tags"); !ok || len(s) != 2 {
		t.Errorf("Strings(tags) = %v, %v", s, ok)
	}
	// Wrong types and absent fields read as absent.
	if _, ok := a.Bool("env"); ok {
		t.Error("Bool of a string field reported ok")
	}
	if _, ok := a.Text("missing"); ok {
		t.Error("String of a missing field reported ok")
	}
	if _, ok := a.Strings("mixed"); ok {
		t.Error("Strings of a mixed list reported ok")
	}

	no, ok := ask.Lookup(r, "no")
	if !ok || no.Accepted() || no.Action != ask.Decline || no.Content != nil {
		t.Errorf("Lookup(no) = %+v, %v; want a decline without content", no, ok)
	}
	if bye, ok := ask.Lookup(r, "bye"); !ok || bye.Action != ask.Cancel {
		t.Errorf("Lookup(bye) = %+v, %v", bye, ok)
	}
	for _, k := range []string{"odd", "sampled", "roots", "absent"} {
		if _, ok := ask.Lookup(r, k); ok {
			t.Errorf("Lookup(%s) reported an answer", k)
		}
	}
	if _, ok := ask.Lookup(nil, "ok"); ok {
		t.Error("Lookup on nil responses reported an answer")
	}
	if _, ok := ask.Lookup(mcp.InputResponseMap{"k": (*mcp.ElicitResult)(nil)}, "k"); ok {
		t.Error("Lookup of a nil result reported an answer")
	}
}

func TestPending(t *testing.T) {
	qs := mcp.InputRequestMap{
		"user_name":   &mcp.ElicitParams{Message: "name?"},
		"greeting":    &mcp.CreateMessageParams{MaxTokens: 5},
		"client_root": &mcp.ListRootsParams{},
	}
	if p := ask.Pending(qs, nil); len(p) != 3 {
		t.Fatalf("Pending with no responses = %d questions, want 3", len(p))
	}
	// A wrong key, an extra key and an answer of the wrong kind leave the
	// question pending; a complete set clears it.
	r := responses(t, `{"wrong_key":{"action":"accept","content":{}},"greeting":{"action":"accept"},"client_root":{"roots":[]}}`)
	p := ask.Pending(qs, r)
	if len(p) != 2 || p["user_name"] == nil || p["greeting"] == nil {
		t.Fatalf("Pending = %v, want user_name and greeting", p)
	}
	r = responses(t, `{"user_name":{"action":"decline"},"greeting":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"},"client_root":{"roots":[]},"extra":{"action":"accept"}}`)
	if p := ask.Pending(qs, r); p != nil {
		t.Fatalf("Pending with every answer = %v, want nil", p)
	}
}

func TestStopped(t *testing.T) {
	res := ask.Stopped("Deployment not started", ask.Answer{Action: ask.Decline})
	if res.IsError {
		t.Error("a decline is reported as an error")
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "Deployment not started (decline)." {
		t.Errorf("text %q", got)
	}
}

func TestMissingCapability(t *testing.T) {
	err := ask.MissingCapability(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}})
	b, _ := json.Marshal(err)
	want := `{"code":-32021,"message":"this request needs the client capability sampling; declare it in the request's _meta clientCapabilities","data":{"requiredCapabilities":{"sampling":{}}}}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// FuzzLookup reads answers from arbitrary inputResponses JSON: it must never
// panic, and an answer it reports must have a known action.
func FuzzLookup(f *testing.F) {
	for _, s := range []string{`{"k":{"action":"accept","content":{"a":1}}}`, `{"k":12345}`, `null`, `{"k":{"action":null}}`,
		`{"k":{"action":"accept","content":{"a":[1,"x",{}]}}}`, `{"k":{"roots":null}}`, `{"k":{"role":"user"}}`} {
		f.Add(s, "k", "a")
	}
	f.Fuzz(func(t *testing.T, js, key, field string) {
		var m mcp.InputResponseMap
		if json.Unmarshal([]byte(js), &m) != nil {
			return
		}
		a, ok := ask.Lookup(m, key)
		if ok && a.Action != ask.Accept && a.Action != ask.Decline && a.Action != ask.Cancel {
			t.Fatalf("answer with action %q", a.Action)
		}
		a.Text(field)
		a.Bool(field)
		a.Number(field)
		a.Strings(field)
		ask.Pending(mcp.InputRequestMap{key: &mcp.ElicitParams{}, "r": &mcp.ListRootsParams{}}, m)
	})
}
