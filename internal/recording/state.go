package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// stateKey is the member a recording hides by default.
const stateKey = "requestState"

// StateNote is what a recording holds instead of a requestState.
func StateNote(s string) string { return stateNote(len(s)) }

func stateNote(n int) string { return fmt.Sprintf("[requestState: %d bytes]", n) }

// isStateNote reports whether s is what StateNote writes instead of a
// requestState: a recording that hid the state tells only its length.
func isStateNote(s string) bool {
	num, _ := strings.CutPrefix(s, "[requestState: ")
	num, _ = strings.CutSuffix(num, " bytes]")
	n, err := strconv.Atoi(num)
	return err == nil && stateNote(n) == s
}

// HideState returns msg with the string value of every "requestState"
// member, at any depth, replaced by StateNote; every other byte stays as it
// was. A key spelled with escapes ("request\u0053tate") is the same key.
// msg must be valid JSON; a value that is not a string is left as it is
// (it is no state a server could have issued).
func HideState(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(stateKey)) && !bytes.Contains(msg, []byte(`\`)) {
		return msg
	}
	spans, notes, ok := stateSpans(msg)
	if !ok || len(spans) == 0 {
		return msg
	}
	var out bytes.Buffer
	last := int64(0)
	for i, s := range spans {
		out.Write(msg[last:s.from])
		q, _ := json.Marshal(notes[i])
		out.Write(q)
		last = s.to
	}
	out.Write(msg[last:])
	return out.Bytes()
}

// span is the bytes of a message from from to to.
type span struct{ from, to int64 }

// stateSpans are where the string values of the "requestState" members of
// msg are, with the note that replaces each; ok is false when msg is not
// valid JSON.
func stateSpans(msg []byte) (spans []span, notes []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	// inObject[i] tells whether the container at depth i is an object;
	// wantKey whether the next token of the object at the top is a key.
	var inObject []bool
	wantKey := false
	stateNext := false
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, false
		}
		top := len(inObject) > 0 && inObject[len(inObject)-1]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				inObject = append(inObject, t == '{')
				wantKey = t == '{'
				stateNext = false
				continue
			case '}', ']':
				inObject = inObject[:len(inObject)-1]
			}
		case string:
			if top && wantKey {
				stateNext = t == stateKey
				wantKey = false
				continue
			}
			if top && stateNext {
				// The value's quote follows the colon after the key.
				from := before + int64(bytes.IndexByte(msg[before:], '"'))
				spans = append(spans, span{from, dec.InputOffset()})
				notes = append(notes, StateNote(t))
			}
		}
		// A value ended: in an object, a key comes next.
		stateNext = false
		wantKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
	return spans, notes, true
}
