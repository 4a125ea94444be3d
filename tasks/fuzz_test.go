package tasks

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeAnswer feeds tasks/update answers, which come from the client,
// to the decoder together with the question they answer.
func FuzzDecodeAnswer(f *testing.F) {
	q := `{"method":"elicitation/create","params":{"mode":"form","message":"Go?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"},"choice":{"type":"string","enum":["a","b"]}},"required":["confirm"]}}}`
	for _, a := range []string{
		`{"action":"accept","content":{"confirm":true}}`,
		`{"action":"accept","content":{"confirm":"yes"}}`,
		`{"action":"accept","content":{"confirm":true,"choice":"c"}}`,
		`{"action":"decline"}`,
		`{"action":"cancel","content":{"x":1}}`,
		`{"action":"maybe"}`,
		`{"ignored":true}`,
		`null`, `[]`, `"accept"`, `{"action":"accept","content":null}`,
	} {
		f.Add(q, a)
	}
	f.Add(`{"method":"elicitation/create","params":{"mode":"url","message":"Open","url":"https://x.test"}}`, `{"action":"accept"}`)
	f.Add(`{"method":"sampling/createMessage","params":{}}`, `{"action":"accept"}`)
	f.Fuzz(func(t *testing.T, question, answer string) {
		a, err := decodeAnswer(json.RawMessage(question), json.RawMessage(answer))
		if err != nil {
			return
		}
		switch a.Action {
		case "accept":
		case "decline", "cancel":
			if a.Content != nil {
				t.Errorf("a %s answer kept content %v", a.Action, a.Content)
			}
		default:
			t.Errorf("accepted an answer with action %q", a.Action)
		}
	})
}
