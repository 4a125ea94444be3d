package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// Any bytes a server sends: the walk for forms' schemas ends, gives only
// valid JSON, and keeps at most maxWrittenForms of them.
func FuzzEachFormSchema(f *testing.F) {
	for _, s := range []string{
		`{"inputRequests":{"a":{"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{"z":{},"a":{}}}}}}}`,
		`{"requestedSchema":[1,2,{"requestedSchema":{}}]}`, `[[[[`, `{"requestedSchema":`, `"x"`, ``,
		strings.Repeat(`{"a":`, 100) + `{}` + strings.Repeat(`}`, 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		eachFormSchema(raw, func(schema json.RawMessage) {
			if !json.Valid(schema) {
				t.Fatalf("a schema that is not JSON: %q", schema)
			}
		})
		var w writtenForms
		for range maxWrittenForms + 2 {
			w.note(raw)
		}
		if len(w.byKey) > maxWrittenForms || len(w.keys) != len(w.byKey) {
			t.Fatalf("%d schemas kept (%d keys), at most %d", len(w.byKey), len(w.keys), maxWrittenForms)
		}
	})
}
