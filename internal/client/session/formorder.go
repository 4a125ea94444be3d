package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
)

// maxWrittenForms bounds how many forms' schemas a session keeps as
// written: the latest, which are those of the questions still to answer.
const maxWrittenForms = 64

// maxFormDepth bounds how deep into a message a form's schema is looked
// for.
const maxFormDepth = 32

// writtenForms keeps the schemas of the forms a server sent as it wrote
// them (wire.FormSchemas), under their canonical JSON: the go-sdk decodes
// a question's schema into a map, which has lost the order of the
// properties, the order in which a person is asked the fields.
type writtenForms struct {
	mu    sync.Mutex
	byKey map[string][]byte
	keys  []string // oldest first
}

// note keeps every form's schema in the received message raw.
func (w *writtenForms) note(raw []byte) {
	eachFormSchema(raw, func(schema json.RawMessage) {
		key, ok := canonical(schema)
		if !ok {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.byKey == nil {
			w.byKey = map[string][]byte{}
		}
		if _, seen := w.byKey[key]; !seen {
			w.keys = append(w.keys, key)
			if len(w.keys) > maxWrittenForms {
				delete(w.byKey, w.keys[0])
				w.keys = w.keys[1:]
			}
		}
		w.byKey[key] = bytes.Clone(schema)
	})
}

// written returns schema (a question's, decoded) as the server wrote it,
// or schema itself when it was not seen.
func (w *writtenForms) written(schema any) any {
	if schema == nil {
		return nil
	}
	key, err := json.Marshal(schema)
	if err != nil {
		return schema
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if raw, ok := w.byKey[string(key)]; ok {
		return json.RawMessage(raw)
	}
	return schema
}

// canonical is the JSON of raw as a decoded value marshals: what a
// question's decoded schema marshals to.
func canonical(raw []byte) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// eachFormSchema calls each with the value of every "requestedSchema"
// member in the JSON raw, as written.
func eachFormSchema(raw []byte, each func(json.RawMessage)) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	_ = walkForms(dec, each, 0)
}

var errTooDeep = errors.New("too deep")

func walkForms(dec *json.Decoder, each func(json.RawMessage), depth int) error {
	if depth > maxFormDepth {
		return errTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			if key, _ := k.(string); key == "requestedSchema" {
				var schema json.RawMessage
				if err := dec.Decode(&schema); err != nil {
					return err
				}
				each(schema)
				continue
			}
			if err := walkForms(dec, each, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := walkForms(dec, each, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}
