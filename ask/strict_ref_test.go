package ask

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
)

// refCheckMessage is CheckMessage as it read messages before the one pass
// (jsonscan.Receive): Repeats, then each message decoded as the go-sdk
// decodes it, its answers checked with Keys, and each answer holding a
// name in another spelling (anywhere in its bytes) read both ways. The
// fuzz test below holds the one pass to its verdicts.
func refCheckMessage(data []byte) error {
	if len(bytes.TrimSpace(data)) > 0 && !json.Valid(data) {
		return nil // not JSON: the go-sdk's own error
	}
	if err := jsonscan.Repeats(data); err != nil {
		if errors.Is(err, strictjson.ErrAmbiguous) {
			return fmt.Errorf("%w: %v", ErrAmbiguous, err)
		}
		return nil
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var batch []json.RawMessage
		if strictjson.DecodeLikeSDK(data, &batch) != nil {
			return nil
		}
		for i, m := range batch {
			if err := refCheckAnswers(m); err != nil {
				return fmt.Errorf("message %d of the batch: %w", i, err)
			}
		}
		return nil
	}
	return refCheckAnswers(data)
}

func refCheckAnswers(msg []byte) error {
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Params struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if strictjson.DecodeLikeSDK(msg, &m) != nil {
		return nil
	}
	for key, answer := range m.Params.InputResponses {
		if err := jsonscan.Keys(answer); err != nil {
			return fmt.Errorf("%w: inputResponses[%q]: %v", ErrAmbiguous, key, err)
		}
		if refOtherSpelling(answer) {
			if err := readOneWay(answer); err != nil {
				return fmt.Errorf("%w: inputResponses[%q]: %v", ErrAmbiguous, key, err)
			}
		}
	}
	if m.Method == "" && len(m.Result) > 0 {
		if err := jsonscan.Keys(m.Result); err != nil {
			return fmt.Errorf("%w: the result: %v", ErrAmbiguous, err)
		}
	}
	return nil
}

func refOtherSpelling(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) || bytes.Contains(raw, []byte("\u212a")) || bytes.Contains(raw, []byte("\u017f")) {
		return true
	}
	lower := bytes.ToLower(raw)
	for _, f := range answerFields {
		c := bytes.Count(lower, []byte(`"`+string(f.folded)+`"`))
		if c == 0 {
			continue
		}
		for _, name := range f.spellings {
			c -= bytes.Count(raw, []byte(`"`+name+`"`))
		}
		if c != 0 {
			return true
		}
	}
	return false
}

// FuzzCheckMessageOnePass: CheckMessage's one pass refuses what the
// decoding reading refused, and only that; a message with one answer
// refuses it with the same words (of several, the decoding reading picked
// one in map order).
func FuzzCheckMessageOnePass(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"decline","Action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"ACTION":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"accept","Content":{"a":1}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"action":"decline"},"q":{"action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d","inputResponses":{"q":{"\u0061ction":"accept","_Meta":{}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":5,"params":{"name":"d","inputResponses":{"q":{"ACTION":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[],"result":{"a":1,"A":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"","params":{"inputResponses":null},"result":{"a":1,"A":2}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2,"result":{"roots":[{"URI":"x"}]}},5]`,
		`{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"k":1,"\u212a":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"inputResponses":{"r":{"roots":[{"uri":"file:///","Name":"n"}]}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := CheckMessage(data), refCheckMessage(data)
		if (got == nil) != (want == nil) {
			t.Fatalf("%s: one pass %v, decoding %v", data, got, want)
		}
		if got != nil && bytes.Count(data, []byte("inputResponses")) <= 1 && got.Error() != want.Error() {
			t.Fatalf("%s: one pass %q, decoding %q", data, got, want)
		}
	})
}
