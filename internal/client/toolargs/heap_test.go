package toolargs_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/askback/askback/internal/client/toolargs"
)

// Checking --args against an input schema decodes only the schemas of the
// arguments given: a property not given whose enum holds a million values
// costs nothing (it took about 25 times the schema's size), and a given
// one is still checked against its enum.
func TestCheckDecodesOnlyTheGivenArguments(t *testing.T) {
	enum := make([]any, 1_000_000)
	for i := range enum {
		enum[i] = float64(i % 10)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"p":    map[string]any{"type": "integer", "enum": []any{1.0, 2.0}},
		"huge": map[string]any{"type": "integer", "enum": enum},
	}}
	raw, _ := json.Marshal(schema)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := toolargs.Check("t", schema, map[string]any{"p": json.Number("1")})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(raw)) {
		t.Errorf("checking one small argument allocated %d bytes, more than the %d bytes of the whole schema", alloc, len(raw))
	}
	if err := toolargs.Check("t", schema, map[string]any{"p": json.Number("3")}); err == nil {
		t.Error("p=3 passed; want it refused by p's enum")
	}
}
