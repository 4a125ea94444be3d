package recording_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/askback/askback/internal/recording"
)

// A proxy writes each message as it passes; a reader gets them back, the
// requestState hidden.
func Example() {
	var file bytes.Buffer
	clock := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	w, _ := recording.NewWriter(&file, recording.Header{Transport: recording.TransportStdio, Server: "bin/deployer"},
		recording.WriterOptions{Now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }})
	w.Message(recording.ClientToServer, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","requestState":"opaque"}}`), nil)
	w.Close("the client closed its side")

	rec, err := recording.Read(&file, recording.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range rec.Entries {
		if e.IsMessage() {
			fmt.Println(e.At, e.Dir, string(e.Message))
		} else {
			fmt.Println(e.At, e.Event, e.Note)
		}
	}
	// Output:
	// 1 c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","requestState":"[requestState: 6 bytes]"}}
	// 2 end the client closed its side
}
