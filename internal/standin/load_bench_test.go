package standin

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

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
	rec, err := recording.Read(bytes.NewReader(raw), recording.ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := Build(rec)
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
// does, and reports the heap it keeps (kept-x: times the recording's
// size) and what loading allocated in all (alloc-x).
func BenchmarkServeLoad(b *testing.B) {
	raw := bigRecording(20_000)
	b.SetBytes(int64(len(raw)))
	var kept, alloc float64
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := loadScript(b, raw)
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		alloc += float64(after.TotalAlloc - before.TotalAlloc)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(kept/float64(b.N)/float64(len(raw)), "kept-x")
	b.ReportMetric(alloc/float64(b.N)/float64(len(raw)), "alloc-x")
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
