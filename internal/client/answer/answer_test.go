package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		{`accept:{"a":1} exact`, `accept:{"a":1} exact`},
		{"accept:{\"a\":1}\texact ", `accept:{"a":1} exact`},
		{`k=accept:{"a":"b exact"} exact`, `k=accept:{"a":"b exact"} exact`},
		{`accept exact`, `accept exact`},
		{`accept:{"a":"exact"}`, `accept:{"a":"exact"}`},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if err != nil || s.String() != c.want {
			t.Errorf("ParseSpec(%q) = %q, %v; want %q", c.in, s.String(), err, c.want)
		}
	}
	bad := map[string]string{
		"":                    "the action is missing",
		"yes":                 `unknown action "yes"`,
		"decline exact":       "exact is for the content of accept; decline takes none",
		"exact":               `unknown action "exact"`,
		`accept:{"a":1}exact`: "text after the JSON object",
		`decline:{"a":1}`:     "only accept carries content",
		`accept:[1]`:          "content is not a JSON object",
		`accept:{"a":1} x`:    "text after the JSON object",
		`=accept`:             "the key before '=' is empty",
		`accept:{"a":`:        "content is not a JSON object",
		`accept:null`:         "content is not a JSON object: it is null",
		`target=maybe:{"a"}`:  `unknown action "maybe"`,
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

// declining declines every question.
type declining struct{}

func (declining) Answer(context.Context, *Question) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "decline"}, nil
}

func TestChainFallsThrough(t *testing.T) {
	c := Chain{NewQueue(), nil, declining{}}
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

// An answer to be sent exactly as given (Spec.Exact, handed on by the
// Queue) gets no defaults: the content is what was written, or none; it
// is still validated. FillsDefaults says when that makes a difference.
func TestExactAnswerGetsNoDefaults(t *testing.T) {
	schema := `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":42},"ok":{"type":"boolean"}},"required":["name"]}`
	form, err := formschema.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(s Spec) *Question {
		q := &Question{Params: &mcp.ElicitParams{Message: "m"}, Form: form}
		if _, err := NewQueue(s).Answer(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := ask(Spec{Action: "accept", Content: map[string]any{"name": "Ann"}, Exact: true})
	res, err := Finish(q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, true)
	if err != nil || len(res.Content) != 1 || res.Content["name"] != "Ann" {
		t.Errorf("exact: %v %v", res, err)
	}
	if _, err := Finish(q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": 1}}, true); err == nil {
		t.Error("an exact answer of the wrong type passed validation")
	}
	q = ask(Spec{Action: "accept", Exact: true})
	if res, err := Finish(q, &mcp.ElicitResult{Action: "accept"}, false); err != nil || res.Content != nil {
		t.Errorf("exact without content: %v %v", res, err)
	}
	q = ask(Spec{Action: "accept", Content: map[string]any{"name": "Ann"}})
	if res, err := Finish(q, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, true); err != nil || fmt.Sprint(res.Content["n"]) != "42" {
		t.Errorf("not exact: %v %v", res, err)
	}

	for _, c := range []struct {
		content map[string]any
		want    bool
	}{
		{map[string]any{"name": "Ann"}, true},
		{nil, true},
		{map[string]any{"name": "Ann", "n": nil}, true},
		{map[string]any{"name": "Ann", "n": 7}, false},
	} {
		if got := FillsDefaults(json.RawMessage(schema), c.content); got != c.want {
			t.Errorf("FillsDefaults(%v) = %v, want %v", c.content, got, c.want)
		}
	}
	if FillsDefaults(json.RawMessage(`{"type":"object","properties":{"a":{"type":"object"}}}`), nil) {
		t.Error("a schema outside the form subset fills in defaults")
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

// formQuestion is a form question asking for the given fields (strings).
func formQuestion(t *testing.T, key string, fields ...string) *Question {
	t.Helper()
	props := map[string]any{}
	for _, f := range fields {
		props[f] = map[string]any{"type": "string"}
	}
	p := &mcp.ElicitParams{Message: "?", RequestedSchema: map[string]any{"type": "object", "properties": props}}
	s, err := formschema.Parse(p.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	return &Question{Key: key, Params: p, Form: s}
}

// One set of answers works whatever order the questions come in: an
// answer with content goes to the form that asks for its fields, answers
// without content keep their order, a keyed answer goes to its key.
func TestQueueMatchesAnswersToTheFieldsAsked(t *testing.T) {
	ctx := context.Background()
	answers := []string{`accept:{"name":"db"}`, `accept:{"region":"eu"}`, `decline`}
	orders := map[string][]*Question{
		"key order (2026-07-28)":     {formQuestion(t, "name", "name"), formQuestion(t, "region", "region"), formQuestion(t, "size", "size")},
		"arrival order (2025-11-25)": {formQuestion(t, "", "region"), formQuestion(t, "", "size"), formQuestion(t, "", "name")},
	}
	for order, qs := range orders {
		var specs []Spec
		for _, a := range answers {
			specs = append(specs, mustSpec(t, a))
		}
		q := NewQueue(specs...)
		got := map[string]string{}
		for _, qu := range qs {
			res, err := q.Answer(ctx, qu)
			if err != nil {
				t.Fatalf("%s: %v", order, err)
			}
			got[qu.Form.Fields[0].Name] = res.Action
			if res.Content != nil {
				got[qu.Form.Fields[0].Name] += fmt.Sprint(res.Content)
			}
		}
		want := map[string]string{"name": "acceptmap[name:db]", "region": "acceptmap[region:eu]", "size": "decline"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", order, got, want)
		}
	}

	// Content that fits no question still goes to the next question, so
	// that the answer's check names the field.
	q := NewQueue(mustSpec(t, `accept:{"nmae":"db"}`))
	res, _ := q.Answer(ctx, formQuestion(t, "", "name"))
	if res.Content["nmae"] != "db" {
		t.Errorf("an answer that fits nothing was not handed out: %v", res)
	}
	// A URL question takes an answer without content before one with.
	q = NewQueue(mustSpec(t, `accept:{"name":"db"}`), mustSpec(t, "accept"))
	url := &Question{Params: &mcp.ElicitParams{Mode: "url", URL: "https://x.example", Message: "open"}}
	if res, _ := q.Answer(ctx, url); res.Action != "accept" || res.Content != nil {
		t.Errorf("URL question got %v", res)
	}
	if res, _ := q.Answer(ctx, formQuestion(t, "", "name")); res.Content["name"] != "db" {
		t.Errorf("form got %v", res)
	}
}

// Who declares model replies exactly when some are written or the person
// can give them, whether or not questions are required.
func TestWhoDeclaresSamplingOnlyWithReplies(t *testing.T) {
	replies := func() *Samples { return NewSamples(Sample{Text: "hi"}) }
	for _, c := range []struct {
		who  Who
		want bool
	}{
		{Who{Written: NewQueue()}, false},
		{Who{Written: NewQueue(), Strict: "add one"}, false},
		{Who{Written: NewQueue(), Samples: []*Samples{nil}}, false},
		{Who{Written: NewQueue(), Samples: []*Samples{replies()}}, true},
		{Who{Written: NewQueue(), Samples: []*Samples{nil, replies()}, Strict: "add one"}, true},
	} {
		a := c.who.Answerer()
		if got := CanSample(a); got != c.want {
			t.Errorf("%+v: CanSample %v, want %v", c.who, got, c.want)
			continue
		}
		if !c.want {
			continue
		}
		//lint:ignore SA1019 sampling is deprecated but still answered
		res, err := a.(Sampler).Sample(context.Background(), &SampleQuestion{Params: &mcp.CreateMessageWithToolsParams{}})
		if err != nil || res == nil {
			t.Errorf("%+v: no reply: %v", c.who, err)
		}
	}
}

// An answer kept for a round or a mode answers only questions of it, in
// every pass of the rule: by key, by fit, and as the first left.
func TestQueueKeepsAnswersForTheirRoundAndMode(t *testing.T) {
	form := &Question{Key: "q", Round: 1, Params: &mcp.ElicitParams{Message: "form"}}
	url := &Question{Key: "q", Round: 1, Params: &mcp.ElicitParams{Mode: "url", URL: "https://example.test", Message: "link"}}
	round2 := &Question{Key: "q", Round: 2, Params: &mcp.ElicitParams{Message: "form"}}
	q := NewQueue(
		Spec{Action: "accept", Mode: "url"},
		Spec{Key: "q", Action: "cancel", Round: 2},
		Spec{Action: "decline"},
	)
	for _, c := range []struct {
		q    *Question
		want string
	}{{form, "decline"}, {round2, "cancel"}, {url, "accept"}} {
		res, err := q.Answer(context.Background(), c.q)
		if err != nil || res.Action != c.want {
			t.Errorf("%s in round %d: %v, %v; want %s", c.q.Params.Message, c.q.Round, res, err, c.want)
		}
	}
	if _, err := NewQueue(Spec{Action: "accept", Mode: "url"}, Spec{Action: "decline", Round: 3}).Answer(context.Background(), form); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("a form in round 1 took an answer kept for URLs or round 3: %v", err)
	}
}

// The failure of Strict names the answers written that are left, each with
// why it did not apply to the question; answers it cannot list leave the
// message as it was.
func TestStrictNamesTheAnswersThatDidNotApply(t *testing.T) {
	form := &Question{Round: 1, Params: &mcp.ElicitParams{Message: "Where to?"}}
	q := NewQueue(Spec{Key: "target", Action: "accept"}, Spec{Action: "decline", Mode: "url"})
	_, err := Who{Written: q, Strict: "add one"}.Answerer().Answer(context.Background(), form)
	want := `no answer was given for question "Where to?"; "target=accept" did not apply: the questions had no keys (protocol 2025-11-25 asks with elicitation/create); write the answer without "target=": it then goes to the form that asks for its fields; "decline" did not apply: it answers only a URL question (a link to open); this one is a form; add one`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Who{Written: Chain{q}, Strict: "add one"}.Answerer().Answer(context.Background(), form)
	if want := `no answer was given for question "Where to?"; add one`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
