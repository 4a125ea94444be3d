package catalogdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/askback/askback/internal/catalog"
)

// largeFiles are two saved catalogs of n tools, each with an input schema
// of 25 described properties; in the second every tool's field_3 allows
// one more character.
func largeFiles(t testing.TB, n int) (old, new []byte) {
	file := func(extra int) []byte {
		c := &catalog.Catalog{Server: catalog.Server{Name: "big", Version: "1"}, ProtocolVersion: "2025-11-25",
			Capabilities: map[string]any{"tools": map[string]any{}}}
		for i := range n {
			props := map[string]any{}
			for j := range 25 {
				max := 100 + j
				if j == 3 {
					max += extra
				}
				props[fmt.Sprintf("field_%d", j)] = map[string]any{"type": "string", "maxLength": max,
					"description": fmt.Sprintf("Field %d of tool %d: a value the caller gives, described at length.", j, i)}
			}
			c.Tools = append(c.Tools, catalog.Tool{Name: fmt.Sprintf("tool_%05d", i), Description: fmt.Sprintf("Tool %d.", i),
				InputSchema: map[string]any{"type": "object", "properties": props, "required": []any{"field_0"}}})
		}
		b, _, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return file(0), file(1)
}

// heapInUse is the memory the heap holds after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// readBoth reads two saved catalogs, and returns them with what they hold
// of the heap and what reading them allocated, each per byte of the files.
func readBoth(t testing.TB, old, new []byte) (co, cn *catalog.Catalog, held, allocated float64) {
	var before runtime.MemStats
	base := heapInUse()
	runtime.ReadMemStats(&before)
	co, err := catalog.ReadSaved("old.json", old)
	if err != nil {
		t.Fatal(err)
	}
	cn, err = catalog.ReadSaved("new.json", new)
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	input := float64(len(old) + len(new))
	return co, cn, float64(heapInUse()-base) / input, float64(after.TotalAlloc-before.TotalAlloc) / input
}

// Two large catalogs read from their files hold less memory than the
// files (their tools' schemas are kept as their text, of which the
// comparison makes trees of the parts of one pair that differ), where
// trees of them held 2.5 times as much: catalog diff's memory is a small
// multiple of its input. A ratio of sizes, measured in this process, not
// a time.
func TestSavedCatalogsHoldLessThanTheirFiles(t *testing.T) {
	old, new := largeFiles(t, 300)
	co, cn, held, _ := readBoth(t, old, new)
	t.Logf("held %.2f bytes per byte of the files", held)
	if held > 1.2 {
		t.Errorf("the catalogs read hold %.2f bytes of heap per byte of their files, want at most 1.2", held)
	}
	rep := Compare(co, cn)
	if len(rep.Changes) != 300 || rep.Changes[0].Rule != RuleInputLoosened {
		t.Errorf("%d changes, the first %v", len(rep.Changes), rep.Changes[0].Rule)
	}
	runtime.KeepAlive(co)
	runtime.KeepAlive(cn)
}

// BenchmarkReadLargeCatalogs reads two saved catalogs of 3,000 tools (14.6
// MiB each) and compares them, reporting what the catalogs read hold and
// what reading them allocated, per byte of the files.
func BenchmarkReadLargeCatalogs(b *testing.B) {
	old, new := largeFiles(b, 3000)
	var held, allocated float64
	for b.Loop() {
		co, cn, h, a := readBoth(b, old, new)
		held, allocated = h, a
		Compare(co, cn)
	}
	b.ReportMetric(held, "held/input-byte")
	b.ReportMetric(allocated, "alloc/input-byte")
	b.ReportMetric(float64(len(old)+len(new))/(1<<20), "input-MiB")
}

// deepFiles are two saved catalogs of one tool nested n deep: its _meta
// (objects in objects), its input schema (items in items, and anyOf
// lists in anyOf lists) and its output schema (lists in lists), with the
// innermost value changed in the second.
func deepFiles(t testing.TB, n int) (old, new []byte) {
	nest := func(open, close, leaf string) any {
		var v any
		if err := json.Unmarshal([]byte(strings.Repeat(open, n)+leaf+strings.Repeat(close, n)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	file := func(leaf string) []byte {
		c := &catalog.Catalog{Server: catalog.Server{Name: "deep", Version: "1"}, ProtocolVersion: "2025-11-25",
			Capabilities: map[string]any{"tools": map[string]any{}}}
		c.Tools = append(c.Tools, catalog.Tool{Name: "t",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"items": nest(`{"type":"array","items":`, `}`, `{"type":"`+leaf+`"}`),
				"anyOf": nest(`{"anyOf":[`, `]}`, `{"type":"`+leaf+`"}`)}},
			OutputSchema: map[string]any{"type": "object", "x-lists": nest(`[`, `]`, `"`+leaf+`"`)},
			Other:        map[string]any{"_meta": map[string]any{"deep": nest(`{"a":`, `}`, `"`+leaf+`"`)}}})
		b, _, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return file("string"), file("integer")
}

// allocated is what diffing the two files costs, as catalog diff does it
// (read, check their form, compare, find the lines, write the report): the
// bytes allocated and the files' size.
func allocated(t testing.TB, old, new []byte) (alloc uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	co, err := catalog.ReadSaved("old.json", old)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := catalog.ReadSaved("new.json", new)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cat  *catalog.Catalog
		file []byte
	}{{co, old}, {cn, new}} {
		if same, err := c.cat.Matches(c.file); err != nil || !same {
			t.Fatalf("a saved catalog is not in its own form (%v)", err)
		}
	}
	rep := Compare(co, cn)
	var paths []catalog.Path
	for _, c := range rep.Changes {
		paths = append(paths, c.Path)
	}
	if _, err := co.LinesOf(paths); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(io.Discard, 0); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A value nested n deep costs catalog save and catalog diff in proportion
// to n, not n²: its file is written a member a line only down to a depth
// (then whole on a line, where each deeper line was indented by its depth),
// its paths made only where a difference is, and its comparison allocates
// nothing at each level. Twice as deep costs about twice as much: a ratio
// of sizes measured in this process, not a time.
func TestDeepCatalogsCostTheirDepth(t *testing.T) {
	old1, new1 := deepFiles(t, 2000)
	old2, new2 := deepFiles(t, 4000)
	if grow := float64(len(old2)) / float64(len(old1)); grow > 2.2 {
		t.Errorf("a catalog twice as deep is written %.1f times as large, want about 2", grow)
	}
	a1, a2 := allocated(t, old1, new1), allocated(t, old2, new2)
	t.Logf("depth 2000: %d bytes, %.1f MB allocated; depth 4000: %d bytes, %.1f MB", len(old1), float64(a1)/1e6, len(old2), float64(a2)/1e6)
	if grow := float64(a2) / float64(a1); grow > 2.6 {
		t.Errorf("catalog diff of catalogs twice as deep allocates %.1f times as much, want about 2", grow)
	}
}

// countingWriter counts what is written to it and keeps nothing.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// A report is written as it is made, not made whole and then written: what
// writing it allocates is a few bytes per byte it writes (1 for text and
// JSON, 3.4 for Markdown's escapes), in every format, where a report made
// whole first cost 6 to 10 (a report can be as large as its catalogs: here
// a change for each of 300 tools' descriptions and schemas). A ratio of
// sizes, not a time.
func TestReportsAreWrittenAsTheyAreMade(t *testing.T) {
	old, new := largeFiles(t, 300)
	co, cn, _, _ := readBoth(t, old, new)
	for _, c := range cn.Tools {
		c.Description += " (v2)"
	}
	rep := Compare(co, cn)
	for name, write := range map[string]func(io.Writer) error{
		"text":     func(w io.Writer) error { return rep.WriteText(w, 0) },
		"json":     func(w io.Writer) error { return rep.WriteJSON(w, 0, Files{}) },
		"markdown": func(w io.Writer) error { return rep.WriteMarkdown(w, 0) },
	} {
		var before, after runtime.MemStats
		w := &countingWriter{}
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := write(w); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(w.n)
		t.Logf("%s: %d bytes written, %.2f bytes allocated per byte", name, w.n, ratio)
		if ratio > 4.5 {
			t.Errorf("writing the %s report allocated %.2f bytes per byte written, want at most 4.5 (is it made whole before it is written?)", name, ratio)
		}
	}
}

// compactFiles are two catalogs of n small tools, each with a
// description, an input schema of one enum and a _meta of one member,
// written compact (not in the form catalog save writes: by another tool,
// or by hand); in the second every _meta differs.
func compactFiles(t testing.TB, n int) (old, new []byte) {
	file := func(v int) []byte {
		var b strings.Builder
		b.WriteString(`{"catalogFormat":1,"server":{"name":"small","version":"1"},"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"tools":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"t%06d","description":"Tool %d.","inputSchema":{"type":"object","properties":{"a":{"enum":["x","y"]}}},"_meta":{"v":%d}}`, i, i, v)
		}
		b.WriteString(`],"prompts":[],"resources":[],"resourceTemplates":[]}`)
		return []byte(b.String())
	}
	return file(1), file(2)
}

// Compact catalogs of many small tools, each with a _meta, hold about
// 2.3 times their files once read, where the _meta of each tool held as
// trees (a map for the tool's other members, one for the _meta) made
// them hold 7.5 times: an item's other members are kept as their text,
// like its schemas. A ratio of sizes measured in this process, not a
// time.
func TestCompactCatalogsHoldAFewTimesTheirFiles(t *testing.T) {
	old, new := compactFiles(t, 5000)
	co, cn, held, allocated := readBoth(t, old, new)
	t.Logf("held %.2f bytes per byte of the files, allocated %.1f", held, allocated)
	if held > 2.6 {
		t.Errorf("the catalogs read hold %.2f bytes of heap per byte of their files, want at most 2.6", held)
	}
	if rep := Compare(co, cn); len(rep.Changes) != 5000 || rep.Changes[0].Rule != RuleMemberChanged {
		t.Errorf("%d changes, want one a tool", len(rep.Changes))
	}
	runtime.KeepAlive(co)
	runtime.KeepAlive(cn)
}

// Whether a file is in the form catalog save writes is found at its first
// line that differs: a compact file is not written whole again in the
// canonical form to be found different (which cost as much as checking a
// saved file). A ratio of bytes allocated, not a time.
func TestMatchesStopsAtTheFirstDifference(t *testing.T) {
	saved, _ := largeFiles(t, 300)
	var b bytes.Buffer
	if err := json.Compact(&b, saved); err != nil {
		t.Fatal(err)
	}
	compact := b.Bytes()
	c, err := catalog.ReadSaved("c.json", compact)
	if err != nil {
		t.Fatal(err)
	}
	matches := func(data []byte, want bool) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		same, err := c.Matches(data)
		runtime.ReadMemStats(&after)
		if err != nil || same != want {
			t.Fatalf("Matches: %v, %v; want %v", same, err, want)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	whole, stopped := matches(saved, true), matches(compact, false)
	t.Logf("a saved file: %d bytes allocated; a compact one: %d", whole, stopped)
	if stopped*10 > whole {
		t.Errorf("finding a compact file not in the saved form allocated %d bytes, a saved one %d: want a tenth at most", stopped, whole)
	}
}

// wideFiles are two compact catalogs of two tools, each with an input
// schema of n properties (a string of one allowed value); in the second,
// one property of the first tool allows another value (every property of
// it when dense).
func wideFiles(n int, dense bool) (old, new []byte) {
	file := func(changed int) []byte {
		var b strings.Builder
		b.WriteString(`{"catalogFormat":1,"server":{"name":"wide","version":"1"},"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"tools":[`)
		for i := range 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"t%d","description":"d","inputSchema":{"type":"object","properties":{`, i)
			for j := range n {
				if j > 0 {
					b.WriteByte(',')
				}
				v := j
				if i == 0 && (j == changed || dense && changed >= 0) {
					v = -1
				}
				fmt.Fprintf(&b, `"k%d":{"type":"string","enum":["v%d"]}`, j, v)
			}
			b.WriteString(`}}}`)
		}
		b.WriteString(`],"prompts":[],"resources":[],"resourceTemplates":[]}`)
		return []byte(b.String())
	}
	return file(-1), file(n / 2)
}

// A tool's schema of many properties is never made a tree whole, neither
// to check the file nor to compare it with the other catalog's: two
// properties of the same text are the same, and the tree of one that
// differs is made when it is compared (a tree costs ten times its text).
// Reading and comparing two catalogs of two tools of 20,000 properties
// each, one changed, allocates 19 bytes per byte of the files, where the
// trees (of the schemas read, of the file checked, of the catalog written
// again, and of both schemas compared) made it 83. A ratio of sizes
// measured in this process, not a time.
func TestWideSchemasAreComparedAPropertyAtATime(t *testing.T) {
	old, new := wideFiles(20000, false)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	co, err := catalog.ReadSaved("old.json", old)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := catalog.ReadSaved("new.json", new)
	if err != nil {
		t.Fatal(err)
	}
	rep := Compare(co, cn)
	runtime.ReadMemStats(&after)
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(old)+len(new))
	t.Logf("%d + %d bytes: %.1f bytes allocated per byte", len(old), len(new), ratio)
	if len(rep.Changes) != 2 || rep.Changes[0].Path != "tools.t0.inputSchema.properties.k10000.enum" {
		t.Fatalf("changes: %+v", rep.Changes)
	}
	if ratio > 30 {
		t.Errorf("reading and comparing catalogs of wide schemas allocated %.1f bytes per byte of the files, want at most 30 (is a schema made a tree whole?)", ratio)
	}
}

// A report holds little more for each change than what it says: its rule
// is a word (a pointer to the rule), not a copy of the rule's texts (72
// bytes). A report of 40,000 changes (an allowed value removed and one
// added for each of 20,000 properties) holds 186 to 250 bytes a change
// (as the heap's small blocks fall), 306 before, and a change is 96
// bytes, 160 before. Sizes measured in this process, not a time.
func TestReportsHoldLittleForEachChange(t *testing.T) {
	old, new := wideFiles(20000, true)
	co, err := catalog.ReadSaved("old.json", old)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := catalog.ReadSaved("new.json", new)
	if err != nil {
		t.Fatal(err)
	}
	base := heapInUse()
	rep := Compare(co, cn)
	held := float64(heapInUse()-base) / float64(len(rep.Changes))
	t.Logf("%d changes: %.0f bytes held a change", len(rep.Changes), held)
	if len(rep.Changes) != 40000 {
		t.Fatalf("%d changes, want 40000", len(rep.Changes))
	}
	if held > 280 {
		t.Errorf("a report holds %.0f bytes a change, want at most 280", held)
	}
	if size := unsafe.Sizeof(Change{}); size > 96 {
		t.Errorf("a change is %d bytes, want at most 96", size)
	}
	runtime.KeepAlive(rep)
	runtime.KeepAlive(co)
	runtime.KeepAlive(cn)
}
