package proxy

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/recording"
)

// A server sending a large message on every stream at once makes the
// proxy hold at most maxLarge of them: each client still gets its message
// whole, the first maxLarge are recorded, the others are noted as forwarded
// unrecorded. Answers as JSON and as events alike.
func TestLargeMessagesHeldAtMostMaxLargeAtOnce(t *testing.T) {
	const streams = 2 * maxLarge
	pad := strings.Repeat("y", 3*smallHold)
	release := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"pad":"%s"}}`, pad)
		half := len(msg) / 2
		sse := strings.Contains(string(body), `"sse"`)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+msg[:half])
		} else {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(len(msg)))
			io.WriteString(w, msg[:half])
		}
		w.(http.Flusher).Flush()
		<-release // every stream holds half of a large message now
		io.WriteString(w, msg[half:])
		if sse {
			io.WriteString(w, "\n\n")
		}
	}), func(o *HTTPOptions) { o.MaxStreams = 2 * streams })
	for _, kind := range []string{"json", "sse"} {
		t.Run(kind, func(t *testing.T) {
			release = make(chan struct{})
			before := strings.Count(r.file.String(), "holds at most")
			var wg sync.WaitGroup
			got := make([]int, streams)
			for i := range streams {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp := r.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"%s"}`, kind), nil)
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					got[i] = strings.Count(string(b), "y")
				}()
			}
			// Those without a place are let go before their message ends.
			deadline := time.Now().Add(60 * time.Second)
			for strings.Count(r.file.String(), "holds at most")-before < streams-maxLarge {
				if time.Now().After(deadline) {
					close(release)
					wg.Wait()
					t.Fatalf("the proxy held more than %d large messages at once:\n%.2000s", maxLarge, r.file.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			close(release)
			wg.Wait()
			for i, n := range got {
				if n != len(pad) {
					t.Errorf("client %d got %d of the %d bytes of its message", i, n, len(pad))
				}
			}
		})
	}
	rec := r.recording()
	recorded, limits := 0, 0
	for _, e := range rec.Entries {
		switch {
		case e.Dir == recording.ServerToClient && e.IsMessage():
			recorded++
		case e.Event == recording.EventLimit:
			limits++
		}
	}
	if recorded != 2*maxLarge || limits != 2*(streams-maxLarge) {
		t.Errorf("%d large messages recorded, %d noted unrecorded; want %d and %d", recorded, limits, 2*maxLarge, 2*(streams-maxLarge))
	}
}
