package tasks

import (
	"encoding/json"
	"fmt"
	"math"
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

// ProgressOf reads a status message from any server: what it reads is a
// progress (finite, done within 0 to total, total above 0), and what
// Task.Progress writes reads back as it was.
func FuzzProgressOf(f *testing.F) {
	for _, s := range []string{"Updating (3/10)", "(0/1)", "x (NaN/1)", "(1/Inf)", "(2/1)", "(-1/5)", "no progress", "(1e308/1e309)", " (1/2) "} {
		f.Add(s, 3.0, 10.0)
	}
	f.Fuzz(func(t *testing.T, msg string, done, total float64) {
		if d, tot, ok := ProgressOf(msg); ok && (!(tot > 0) || math.IsInf(tot, 0) || !(d >= 0) || d > tot) {
			t.Fatalf("ProgressOf(%q) = %v/%v, no progress", msg, d, tot)
		}
		if !(total > 0) || math.IsInf(total, 0) || !(done >= 0) || done > total {
			return
		}
		written := fmt.Sprintf("%s (%s/%s)", msg, num(done), num(total))
		if d, tot, ok := ProgressOf(written); !ok || d != done || tot != total {
			t.Fatalf("ProgressOf(%q) = %v/%v %v; want %v/%v", written, d, tot, ok, done, total)
		}
	})
}
