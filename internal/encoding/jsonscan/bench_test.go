package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// answers are results as servers send them: a tool's short answer, and a
// tools/list page of 20 tools with input schemas.
func answers() map[string][]byte {
	call := []byte(`{"content":[{"type":"text","text":"Deployed build 4711 to staging (3 replicas, canary 10%)."}],"structuredContent":{"env":"staging","build":4711,"replicas":3},"isError":false}`)
	var tools []string
	for i := range 20 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","title":"Tool %d","description":"Does thing %d to the named target, carefully.","inputSchema":{"type":"object","properties":{"target":{"type":"string","description":"where"},"count":{"type":"integer","minimum":1},"dry":{"type":"boolean","default":true}},"required":["target"]},"annotations":{"readOnlyHint":false}}`, i, i, i))
	}
	list := []byte(`{"tools":[` + strings.Join(tools, ",") + `],"nextCursor":"abc"}`)
	return map[string][]byte{"call": call, "list": list}
}

// BenchmarkRepeats: Repeats against strictjson.CheckRepeats on the same
// bytes, taking turns (x-baseline is the ratio of CPU time per call).
func BenchmarkRepeats(b *testing.B) {
	for name, data := range answers() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			benchratio.Interleave(b, func() {
				if Repeats(data) != nil {
					b.Fatal("repeat")
				}
			}, func() {
				if refCheckRepeats(data) != nil {
					b.Fatal("repeat")
				}
			})
		})
	}
}

// BenchmarkScan: one pass over a whole response (id, failure, result top,
// repeats) against what it replaces: the go-sdk's decoding of the message a
// second time, CheckRepeats of the result and the content check.
func BenchmarkScan(b *testing.B) {
	for name, result := range answers() {
		msg := []byte(`{"jsonrpc":"2.0","id":42,"result":` + string(result) + `}`)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			benchratio.Interleave(b, func() {
				if m := Scan(msg); m.Kind != Response || m.Repeat != nil {
					b.Fatal("not read")
				}
			}, func() {
				m, err := jsonrpc.DecodeMessage(msg)
				if err != nil {
					b.Fatal(err)
				}
				r := m.(*jsonrpc.Response)
				if refCheckRepeats(r.Result) != nil {
					b.Fatal("repeat")
				}
				var top map[string]json.RawMessage
				_ = json.Unmarshal(r.Result, &top)
			})
		})
	}
}

// BenchmarkPassAllocations: what one pass of Scan (the whole response)
// and of Repeats (the result) allocates, alone: allocs/op, about none (the
// 20-tool list holds 141 objects; a pass's stack and key list come from
// the passes before it). make bench (section allocs) runs it; BENCHMARKS.md
// gives the figure.
func BenchmarkPassAllocations(b *testing.B) {
	all := answers()
	for _, name := range []string{"call", "list"} {
		result := all[name]
		msg := []byte(`{"jsonrpc":"2.0","id":42,"result":` + string(result) + `}`)
		b.Run("Scan-"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m := Scan(msg); m.Kind != Response || m.Repeat != nil {
					b.Fatal("not read")
				}
			}
		})
		b.Run("Repeats-"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Repeats(result) != nil {
					b.Fatal("repeat")
				}
			}
		})
	}
}

// A pass reads the same response again and again the same way, its room
// reused from the pass before. What a pass allocates is a figure of
// BenchmarkPassAllocations (make bench, section allocs; BENCHMARKS.md,
// "Allocations per operation"), not asserted here.
func TestScanAgain(t *testing.T) {
	for name, result := range answers() {
		msg := []byte(`{"jsonrpc":"2.0","id":42,"result":` + string(result) + `}`)
		first := Scan(msg)
		if first.Kind != Response || first.Failed || first.Repeat != nil || first.ID.Raw() != int64(42) {
			t.Fatalf("Scan of %s: %+v", name, first)
		}
		for range 20 {
			if m := Scan(msg); m.Kind != first.Kind || m.ID != first.ID || m.Failed || m.Repeat != nil {
				t.Fatalf("Scan of %s again: %+v, first %+v", name, m, first)
			}
			if err := Repeats(result); err != nil {
				t.Fatalf("Repeats of %s: %v", name, err)
			}
		}
	}
}
