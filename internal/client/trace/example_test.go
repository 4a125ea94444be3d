package trace_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/askback/askback/internal/client/trace"
)

func ExampleRedact() {
	raw := json.RawMessage(`{"resultType":"input_required","requestState":"eyJzZXJ2aWNlIjoiYXV0aCJ9.c2ln"}`)
	fmt.Println(string(trace.Redact(raw, false)))
	// Output: {"requestState":"[requestState: 29 bytes]","resultType":"input_required"}
}

func ExampleRecorder_Info() {
	at := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	rec := trace.New(os.Stdout, trace.Options{Now: func() time.Time { return at }})
	rec.Info(map[string]any{"url": "http://127.0.0.1:8080/mcp", "headers": trace.RedactHeaders([]string{"Authorization: Bearer t0ken"})})
	// Output: {"t_ms":0,"kind":"info","info":{"headers":["Authorization: [redacted]"],"url":"http://127.0.0.1:8080/mcp"}}
}
