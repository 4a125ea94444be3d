package wire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// events feeds stream to an eventStream in chunks of n bytes and returns
// what it heard. The watcher, which reads the bytes once, must hear what
// the observer, which decodes them, hears.
func events(stream string, n int) []string {
	var heard, watched []string
	s := &eventStream{obs: listeners{obs: func(sent bool, msg jsonrpc.Message) {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			heard = append(heard, m.Method)
		case *jsonrpc.Response:
			heard = append(heard, "response "+fmt.Sprint(m.ID.Raw()))
		}
	}, watch: func(sent bool, m jsonscan.Message) {
		switch m.Kind {
		case jsonscan.Request:
			watched = append(watched, m.Method)
		case jsonscan.Response:
			watched = append(watched, "response "+fmt.Sprint(m.ID.Raw()))
		}
	}}}
	defer func() {
		if fmt.Sprint(heard) != fmt.Sprint(watched) {
			panic(fmt.Sprintf("the observer heard %v, the watcher %v", heard, watched))
		}
	}()
	for len(stream) > 0 {
		k := min(n, len(stream))
		s.feed([]byte(stream[:k]))
		stream = stream[k:]
	}
	return heard
}

func TestEventStream(t *testing.T) {
	stream := ": a comment\r\n" +
		"id: 1\r\nretry: 100\r\ndata: \r\n\r\n" + // a priming event: no message
		"event: endpoint\ndata: /messages?s=1\n\n" + // the legacy transport's endpoint
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"method\":\"elicitation/create\",\"params\":{}}\r\r" +
		"data:{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n" +
		"data: [{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}]\n\n" +
		"data: not json\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n" // not ended: not dispatched
	want := "[elicitation/create response 7 notifications/progress notifications/message]"
	for _, n := range []int{1, 2, 3, 7, 64, len(stream)} {
		if got := fmt.Sprint(events(stream, n)); got != want {
			t.Errorf("chunks of %d: %s, want %s", n, got, want)
		}
	}
}

// An event larger than MaxMessage is dropped; the next one is heard.
func TestEventStreamBound(t *testing.T) {
	big := "data: " + strings.Repeat("x", MaxMessage+10) + "\n\n"
	got := events(big+"data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n\n", 1<<20)
	if fmt.Sprint(got) != "[ping]" {
		t.Errorf("got %v", got)
	}
}

// However a stream is cut into reads, the same messages are heard, and
// nothing panics.
func FuzzEventStream(f *testing.F) {
	f.Add("data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n\n", 3)
	f.Add("event: message\r\ndata: [{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]\r\n\r\n", 1)
	f.Add(":\r\r\n\n\rdata\n\n", 2)
	f.Fuzz(func(t *testing.T, stream string, n int) {
		if n <= 0 {
			n = 1
		}
		whole := fmt.Sprint(events(stream, len(stream)+1))
		if cut := fmt.Sprint(events(stream, n)); cut != whole {
			t.Errorf("chunks of %d heard %s, whole %s", n, cut, whole)
		}
	})
}
