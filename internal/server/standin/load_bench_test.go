package standin

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigRecording is a stdio recording of n calls of one tool, each with
// arguments of its own and a result of about 1 KiB.
func bigRecording(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}` + "\n")
	b.WriteString(`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	b.WriteString(`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	text := strings.Repeat("lorem ipsum ", 85)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"t_ms":%d,"dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"item %d","page":%d,"filters":{"kind":"doc","tags":["a","b","c"]}}}}}`+"\n", i+1, i, i, i%7)
		fmt.Fprintf(&b, `{"t_ms":%d,"dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s %d"}]}}}`+"\n", i+1, i, text, i)
	}
	return b.Bytes()
}

// loadScript reads and builds a recording as mcp-tester serve does.
func loadScript(tb testing.TB, raw []byte) *Standin {
	rd, err := recording.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := Read(rd, 0)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(sc, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkServeLoad loads a recording of about 24 MiB as mcp-tester serve
// does, and reports, in times the recording's size, the heap it keeps
// (kept-x), the largest heap seen while it loads (peak-x: what the
// process's memory follows) and what loading allocated in all (alloc-x).
func BenchmarkServeLoad(b *testing.B) {
	raw := bigRecording(20_000)
	b.SetBytes(int64(len(raw)))
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var kept, alloc, peak float64
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stop, seen := make(chan struct{}), make(chan uint64)
		go func() {
			var top uint64
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for {
				metrics.Read(heap)
				top = max(top, heap[0].Value.Uint64())
				select {
				case <-stop:
					seen <- top
					return
				case <-tick.C:
				}
			}
		}()
		s := loadScript(b, raw)
		close(stop)
		peak += float64(<-seen) - float64(before.HeapAlloc)
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		alloc += float64(after.TotalAlloc - before.TotalAlloc)
		runtime.KeepAlive(s)
	}
	n := float64(b.N) * float64(len(raw))
	b.ReportMetric(kept/n, "kept-x")
	b.ReportMetric(peak/n, "peak-x")
	b.ReportMetric(alloc/n, "alloc-x")
}

// BenchmarkUnmatched answers a request that a recording of 20,000 calls
// of the same tool does not hold: the nearest recorded one is sought.
func BenchmarkUnmatched(b *testing.B) {
	s := loadScript(b, bigRecording(20_000))
	cs := client(b, s, "2025-11-25", false, nil)
	b.ResetTimer()
	for i := range b.N {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": fmt.Sprintf("nothing %d", i), "page": 99}})
		if err == nil {
			b.Fatal("an unrecorded call was answered")
		}
	}
}
