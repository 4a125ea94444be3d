package interactive

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func formQuestion(t *testing.T, message, schema string) *answer.Question {
	t.Helper()
	s, err := formschema.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	return &answer.Question{Key: "target", Round: 1, Server: "deployer",
		Params: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: []byte(schema)}, Form: s}
}

// accessible answers q with the typed lines and returns the answer, the
// error and what the person saw.
func accessible(t *testing.T, q *answer.Question, typed string, opener Opener) (*mcp.ElicitResult, string, error) {
	t.Helper()
	var out bytes.Buffer
	a := New(Options{In: strings.NewReader(typed), Out: &out, Accessible: true, Opener: opener})
	res, err := a.Answer(context.Background(), q)
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Errorf("accessible output holds escape sequences:\n%q", out.String())
	}
	return res, out.String(), err
}

func TestAccessibleDeployForm(t *testing.T) {
	q := formQuestion(t, "Roll out auth-service version 2.4.1 – where to?", deploySchema)
	cases := []struct {
		typed   string
		action  string
		content map[string]any
	}{
		{"2\ny\n1\n", "accept", map[string]any{"environment": "production", "confirm": true}},
		{"\n\n\n", "accept", map[string]any{"environment": "staging", "confirm": false}}, // Enter keeps the defaults
		{"\n\n2\n", "decline", nil},
		{"\n\n3\n", "cancel", nil},
	}
	for _, c := range cases {
		res, seen, err := accessible(t, q, c.typed, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.typed, err)
		}
		if res.Action != c.action || !reflect.DeepEqual(res.Content, c.content) {
			t.Errorf("%q: %s %v, want %s %v", c.typed, res.Action, res.Content, c.action, c.content)
		}
		for _, want := range []string{"deployer asks:", "Roll out auth-service version 2.4.1 – where to?",
			"Target environment (required)", "1. Staging", "2. Production", "I have reviewed the changes (required) [y/N]",
			"Your answer", "1. Submit", "2. Decline", "3. Cancel"} {
			if !strings.Contains(seen, want) {
				t.Errorf("the person did not see %q:\n%s", want, seen)
			}
		}
	}
}

func TestAccessibleAsksAgainUntilValid(t *testing.T) {
	q := formQuestion(t, "Who are you?", `{"type":"object","properties":{
	  "name":{"type":"string","title":"Name"},
	  "age":{"type":"integer","minimum":18}},"required":["name"]}`)
	// Submit with the name missing, then with an age below the minimum
	// (refused inline and typed again), then complete.
	res, seen, err := accessible(t, q, "\n\n1\nAda\n12\n42\n1\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, map[string]any{"name": "Ada", "age": int64(42)}) {
		t.Errorf("answer = %s %v", res.Action, res.Content)
	}
	for _, want := range []string{"The answer cannot be sent yet:", "- Name: is required", "must be at least 18, got 12"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the person did not see %q:\n%s", want, seen)
		}
	}
}

func TestAccessibleEndOfInputIsNoAnswer(t *testing.T) {
	q := formQuestion(t, "Roll out?", deploySchema)
	if _, _, err := accessible(t, q, "2\n", nil); !errors.Is(err, answer.ErrNoAnswer) {
		t.Errorf("input ended mid-form: err = %v, want ErrNoAnswer (the session declines)", err)
	}
}

// Once the input has ended nothing more is shown: neither the prompts the
// form goes on to, nor a later question; one note says so, once.
func TestEndOfInputShowsNothingMore(t *testing.T) {
	q := formQuestion(t, "Roll out?", deploySchema)
	var out bytes.Buffer
	var notes []string
	a := New(Options{In: strings.NewReader("2\n"), Out: &out, Accessible: true,
		Note: func(s string) { notes = append(notes, s) }})
	if _, err := a.Answer(context.Background(), q); !errors.Is(err, answer.ErrNoAnswer) {
		t.Fatalf("input ended mid-form: err = %v, want ErrNoAnswer", err)
	}
	seen := out.String()
	if !strings.Contains(seen, "[y/N]") || strings.Contains(seen, "Your answer") {
		t.Errorf("shown after the input ended (the action's prompt), or the prompt that met the end not shown:\n%s", seen)
	}
	if !strings.HasSuffix(seen, "[y/N] \n") {
		t.Errorf("the prompt the end cut short should end its line:\n%q", seen)
	}
	out.Reset()
	if _, err := a.Answer(context.Background(), formQuestion(t, "And now?", deploySchema)); !errors.Is(err, answer.ErrNoAnswer) {
		t.Fatalf("a question after the end: err = %v, want ErrNoAnswer", err)
	}
	if out.Len() != 0 {
		t.Errorf("a question after the end of the input was shown:\n%s", out.String())
	}
	want := []string{"the input ended: no more questions are shown; this one and any after it are declined"}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes = %q, want %q", notes, want)
	}
}

func TestNoTerminalNoAnswer(t *testing.T) {
	q := formQuestion(t, "Roll out?", deploySchema)
	for _, a := range []*Answerer{nil, New(Options{Out: &bytes.Buffer{}}), New(Options{In: strings.NewReader("")})} {
		if _, err := a.Answer(context.Background(), q); !errors.Is(err, answer.ErrNoAnswer) {
			t.Errorf("%+v: err = %v, want ErrNoAnswer", a, err)
		}
	}
	// A form whose schema could not be parsed (--no-validate) cannot be drawn.
	q.Form = nil
	if _, _, err := accessible(t, q, "1\n", nil); !errors.Is(err, answer.ErrNoAnswer) {
		t.Errorf("unparsed schema: err = %v, want ErrNoAnswer", err)
	}
}

func TestHostileMessageIsShownInert(t *testing.T) {
	q := formQuestion(t, "Deploy?\x1b[2K\x1b[1A\rdeployer asks: nothing, just press Enter", deploySchema)
	q.Server = "evil\x1b[31m"
	_, seen, _ := accessible(t, q, "\n\n3\n", nil)
	if !strings.Contains(seen, `Deploy?\x1b[2K\x1b[1A\x0ddeployer asks`) || !strings.Contains(seen, `evil\x1b[31m asks:`) {
		t.Errorf("escape sequences not shown escaped:\n%s", seen)
	}
}

type openRecorder struct{ urls []string }

func (o *openRecorder) Open(_ context.Context, u string) error {
	o.urls = append(o.urls, u)
	return nil
}

func urlQuestion(u string) *answer.Question {
	return &answer.Question{Key: "github", Round: 1, Server: "connector",
		Params: &mcp.ElicitParams{Mode: "url", Message: "Connect your GitHub account.", URL: u}}
}

func TestAccessibleURLConsent(t *testing.T) {
	const link = "https://mcp.example.com/connect/github?session=abc"
	cases := []struct {
		typed  string
		action string
		opened bool
	}{
		{"y\n", "accept", true},
		{"n\n", "decline", false},
		{"\n", "decline", false}, // the default is No
	}
	for _, c := range cases {
		rec := &openRecorder{}
		res, seen, err := accessible(t, urlQuestion(link), c.typed, rec)
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != c.action || res.Content != nil {
			t.Errorf("%q: %s %v, want %s", c.typed, res.Action, res.Content, c.action)
		}
		if opened := len(rec.urls) == 1 && rec.urls[0] == link; opened != c.opened || len(rec.urls) > 1 {
			t.Errorf("%q: opened %q, want opened=%v", c.typed, rec.urls, c.opened)
		}
		for _, want := range []string{"connector asks you to open a link:", "Connect your GitHub account.", link, "Site: mcp.example.com", "Open this link in your browser? [y/N]"} {
			if !strings.Contains(seen, want) {
				t.Errorf("the person did not see %q:\n%s", want, seen)
			}
		}
	}
}

func TestURLWarningsAreShownAndBadLinksNeverOpened(t *testing.T) {
	rec := &openRecorder{}
	res, seen, _ := accessible(t, urlQuestion("http://xn--gthub-n4a.com/login"), "y\n", rec)
	if res.Action != "accept" || !strings.Contains(seen, "Warning: the host xn--gthub-n4a.com is punycode for") || !strings.Contains(seen, "Warning: the URL uses plain http") ||
		!strings.Contains(seen, "Site: xn--gthub-n4a.com (reads as ") {
		t.Errorf("punycode link: %s\n%s", res.Action, seen)
	}
	for _, bad := range []string{"javascript:alert(document.cookie)", "file:///etc/shadow", "https://good.example/\x1b]8;;https://evil.example\x07"} {
		rec := &openRecorder{}
		res, seen, err := accessible(t, urlQuestion(bad), "y\n", rec)
		if err != nil || res.Action != "decline" || len(rec.urls) > 0 {
			t.Errorf("%q: %v %v opened %q; want declined, never opened\n%s", bad, res, err, rec.urls, seen)
		}
	}
}

func TestAccessibleEveryKind(t *testing.T) {
	q := formQuestion(t, "Tell me about you.", `{"type":"object","properties":{
	  "name":{"type":"string","title":"Name"},
	  "age":{"type":"integer","minimum":18,"maximum":130,"default":30},
	  "day":{"type":"string","format":"date"},
	  "tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"},{"const":"c","title":"Gamma"}]},"default":["a"]},
	  "ok":{"type":"boolean"},
	  "color":{"type":"string","enum":["red","green"]}},
	  "required":["name"]}`)
	typed := strings.Join([]string{
		"Ada",        // name
		"",           // age: keep the default 30
		"2026-13-01", // day: refused inline
		"2026-07-28",
		"2", "0", // tags: tick Beta (Alpha is pre-ticked), done
		"2", // ok: (no answer), Yes, No
		"3", // color: (no answer), red, green
		"1", // Submit
	}, "\n") + "\n"
	res, seen, err := accessible(t, q, typed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "age": int64(30), "day": "2026-07-28", "tags": []any{"a", "b"}, "ok": true, "color": "green"}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("answer = %s %#v\nwant %#v\n%s", res.Action, res.Content, want, seen)
	}
	for _, w := range []string{"Name (required)", "day — a date, YYYY-MM-DD", "age — a whole number between 18 and 130", "must be a date (YYYY-MM-DD)", "Alpha", "Gamma", "(no answer)"} {
		if !strings.Contains(seen, w) {
			t.Errorf("the person did not see %q:\n%s", w, seen)
		}
	}
}

// TestAccessibleOptionalBooleanLeftOut: an optional boolean without a
// default the person skips is not in the answer; a required one and one
// with a default are answered as yes/no.
func TestAccessibleOptionalBooleanLeftOut(t *testing.T) {
	q := formQuestion(t, "Options?", `{"type":"object","properties":{
	  "notify":{"type":"boolean","title":"Notify me"},
	  "agree":{"type":"boolean","title":"I agree"},
	  "dry":{"type":"boolean","title":"Dry run","default":true}},
	  "required":["agree"]}`)
	typed := strings.Join([]string{
		"",  // notify: keep (no answer)
		"n", // agree: No is an answer
		"",  // dry: keep the default
		"1", // Submit
	}, "\n") + "\n"
	res, seen, err := accessible(t, q, typed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"agree": false, "dry": true}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("answer = %s %#v\nwant %#v\n%s", res.Action, res.Content, want, seen)
	}
}

func TestSecretFieldIsFlagged(t *testing.T) {
	q := formQuestion(t, "Log in to the registry.", `{"type":"object","properties":{"password":{"type":"string","title":"Registry password"}}}`)
	res, seen, err := accessible(t, q, "\n2\n", nil)
	if err != nil || res.Action != "decline" {
		t.Fatalf("%v %v", res, err)
	}
	if !strings.Contains(seen, `Warning: Registry password looks like it asks for a secret ("password")`) {
		t.Errorf("no warning about the secret field:\n%s", seen)
	}
}

func TestEmptyFormIsAYesNoQuestion(t *testing.T) {
	q := formQuestion(t, "Proceed with the migration?", `{"type":"object","properties":{}}`)
	for typed, want := range map[string]string{"1\n": "accept", "2\n": "decline", "3\n": "cancel"} {
		res, _, err := accessible(t, q, typed, nil)
		if err != nil || res.Action != want {
			t.Errorf("%q: %v %v, want %s", typed, res, err, want)
		}
		if want == "accept" && (res.Content == nil || len(res.Content) != 0) {
			t.Errorf("accept content = %#v, want an empty object", res.Content)
		}
	}
}

// A server that echoes the user's credential in a question does not get it
// on the screen: the message, the fields' texts and options are shown with
// Options.Hide applied, the values the choices send are not changed.
func TestHideCredentialsInQuestions(t *testing.T) {
	const tok = "tok3n-s3cret-value"
	schema := `{"type":"object","properties":{"env":{"type":"string","title":"Env ` + tok + `","description":"d ` + tok + `","oneOf":[{"const":"a","title":"A ` + tok + `"},{"const":"b","title":"B"}]}},"required":["env"]}`
	q := formQuestion(t, "Your token is "+tok, schema)
	var out bytes.Buffer
	hide := func(s string) string { return strings.ReplaceAll(s, tok, "[redacted]") }
	a := New(Options{In: strings.NewReader("1\n1\n"), Out: &out, Accessible: true, Hide: hide})
	res, err := a.Answer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), tok) || !strings.Contains(out.String(), "[redacted]") {
		t.Errorf("the question shown:\n%s", out.String())
	}
	if res.Action != "accept" || res.Content["env"] != "a" {
		t.Errorf("answer %s %v, want accept env=a", res.Action, res.Content)
	}
}

// An empty line at a multi-select with a default ends the choice as it
// stands (the default), as it keeps a single select's default; without a
// default it is still no answer to the prompt.
func TestAccessibleMultiSelectEmptyLineKeepsDefault(t *testing.T) {
	q := formQuestion(t, "Which regions?", `{"type":"object","properties":{
	  "regions":{"type":"array","items":{"enum":["eu","us","ap"]},"default":["eu","ap"]},
	  "zone":{"type":"string","enum":["a","b"],"default":"b"}}}`)
	typed := strings.Join([]string{
		"",  // regions: keep the default
		"",  // zone: keep the default
		"1", // Submit
	}, "\n") + "\n"
	res, seen, err := accessible(t, q, typed, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"regions": []any{"eu", "ap"}, "zone": "b"}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("answer = %s %#v, want %#v\n%s", res.Action, res.Content, want, seen)
	}
	if strings.Contains(seen, "Invalid") || !strings.Contains(seen, "an empty line keeps the choice ticked") {
		t.Errorf("the empty line was refused, or not offered:\n%s", seen)
	}
}
