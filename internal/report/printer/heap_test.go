package printer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"testing"

	"github.com/askback/askback/internal/report/printer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingWriter counts what is written to it and keeps none of it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// Printing a result's structured content made of many small values (a
// million numbers) allocates a small multiple of the text it writes: the
// indented text goes to the writer as it was made, not copied into a
// string and then again into fmt's buffer (which took about five times the
// text's size).
func TestStructuredContentPrintedWithoutCopies(t *testing.T) {
	values := make([]any, 1_000_000)
	for i := range values {
		values[i] = float64(i % 10)
	}
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"x": values}}
	var w countingWriter
	printer.ToolResult(io.Discard, res) // warm up
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	printer.ToolResult(&w, res)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(3 * w.n); alloc > limit {
		t.Errorf("printing %d bytes allocated %d bytes (%.1f×); want at most 3× the text", w.n, alloc, float64(alloc)/float64(w.n))
	}
	t.Logf("printing %d bytes allocated %d bytes (%.1f×)", w.n, alloc, float64(alloc)/float64(w.n))
}

// printer.JSON writes what an indenting encoder writes, for values with
// empty objects and arrays, nesting, and strings holding brackets, quotes,
// backslashes, colons and commas.
func TestJSONIndentedAsTheEncoderDoes(t *testing.T) {
	for _, v := range []any{
		map[string]any{},
		[]any{},
		"plain",
		3.5,
		nil,
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1.0, "x", nil, true, map[string]any{"d": []any{[]any{}}}}},
		map[string]any{`k"[{,:`: `v\"]},: \\`, "e": "<&>", "u": "é"},
		[]any{[]any{[]any{1.0}}, map[string]any{"z": map[string]any{"y": "x"}}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := printer.JSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%#v:\ngot  %q\nwant %q", v, got.String(), want.String())
		}
	}
}
