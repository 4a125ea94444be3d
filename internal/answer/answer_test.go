package answer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"accept", "accept"},
		{"decline", "decline"},
		{" cancel ", "cancel"},
		{`accept:{"a":1}`, `accept:{"a":1}`},
		{`accept:{}`, `accept:{}`},
		{`target=decline`, `target=decline`},
		{`target=accept:{"environment":"production","confirm":true}`, `target=accept:{"confirm":true,"environment":"production"}`},
		{`accept:{"url":"https://x.example/?a=b"}`, `accept:{"url":"https://x.example/?a=b"}`},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if err != nil || s.String() != c.want {
			t.Errorf("ParseSpec(%q) = %q, %v; want %q", c.in, s.String(), err, c.want)
		}
	}
	bad := map[string]string{
		"":                   "the action is missing",
		"yes":                `unknown action "yes"`,
		`decline:{"a":1}`:    "only accept carries content",
		`accept:[1]`:         "content is not a JSON object",
		`accept:{"a":1} x`:   "text after the JSON object",
		`=accept`:            "the key before '=' is empty",
		`accept:{"a":`:       "content is not a JSON object",
		`accept:null`:        "content is not a JSON object: it is null",
		`target=maybe:{"a"}`: `unknown action "maybe"`,
	}
	for in, want := range bad {
		if _, err := ParseSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestQueueOrderAndKeys(t *testing.T) {
	q := NewQueue(mustSpec(t, "decline"), mustSpec(t, "b=cancel"), mustSpec(t, "accept"))
	ctx := context.Background()
	a, _ := q.Answer(ctx, &Question{Key: "a"})
	b, _ := q.Answer(ctx, &Question{Key: "b"})
	c, _ := q.Answer(ctx, &Question{Key: "c"})
	if a.Action != "decline" || b.Action != "cancel" || c.Action != "accept" {
		t.Errorf("got %s %s %s", a.Action, b.Action, c.Action)
	}
	if _, err := q.Answer(ctx, &Question{Key: "d"}); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("empty queue: %v", err)
	}
	q.Push(mustSpec(t, "x=accept"))
	if len(q.Unused()) != 1 || q.Unused()[0].Key != "x" {
		t.Errorf("unused = %v", q.Unused())
	}
}

func TestChainFallsThrough(t *testing.T) {
	c := Chain{NewQueue(), nil, Declining{}}
	res, err := c.Answer(context.Background(), &Question{})
	if err != nil || res.Action != "decline" {
		t.Errorf("chain = %v, %v", res, err)
	}
	if _, err := (Chain{NewQueue()}).Answer(context.Background(), &Question{}); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("empty chain: %v", err)
	}
}

func TestFinish(t *testing.T) {
	form, err := formschema.Parse(`{"type":"object","properties":{"env":{"type":"string","enum":["a","b"],"default":"a"},"ok":{"type":"boolean"}},"required":["ok"]}`)
	if err != nil {
		t.Fatal(err)
	}
	q := &Question{Key: "k", Params: &mcp.ElicitParams{Message: "m"}, Form: form}
	res, err := Finish(q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, true)
	if err != nil || res.Content["env"] != "a" {
		t.Errorf("defaults: %v %v", res, err)
	}
	_, err = Finish(q, &mcp.ElicitResult{Action: "accept"}, true)
	var ie *InvalidAnswerError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `field "ok": is required`) || !strings.Contains(err.Error(), `question "k"`) {
		t.Errorf("missing required: %v", err)
	}
	res, err = Finish(q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "z"}}, false)
	if err != nil || res.Content["env"] != "z" {
		t.Errorf("no-validate: %v %v", res, err)
	}
	res, err = Finish(q, &mcp.ElicitResult{Action: "decline", Content: map[string]any{"x": 1}}, true)
	if err != nil || res.Content != nil {
		t.Errorf("decline carries content: %v %v", res, err)
	}
	url := &Question{Key: "u", Params: &mcp.ElicitParams{Mode: "url", URL: "https://x.example"}}
	if _, err := Finish(url, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"a": 1}}, true); err == nil {
		t.Error("URL answer with content accepted")
	}
	if _, err := Finish(q, &mcp.ElicitResult{Action: "maybe"}, true); err == nil {
		t.Error("unknown action accepted")
	}
	if _, err := Finish(q, nil, true); err == nil {
		t.Error("nil answer accepted")
	}
}

func mustSpec(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"accept", `k=accept:{"a":[1,2]}`, "decline", `accept:{"a":"=:"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			return
		}
		again, err := ParseSpec(sp.String())
		if err != nil || again.String() != sp.String() {
			t.Fatalf("%q: round trip %q -> %q (%v)", s, sp.String(), again.String(), err)
		}
	})
}
