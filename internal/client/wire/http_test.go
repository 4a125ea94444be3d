package wire

import (
	"errors"
	"fmt"
	"io"
	"net/http"
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

// canned is a RoundTripper that answers every request with status, media
// type and body.
type canned struct {
	status int
	media  string
	body   string
}

func (c canned) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {c.media}},
		Body: io.NopCloser(strings.NewReader(c.body))}, nil
}

// The answer to a POSTed request that ends without the answer to it,
// having carried an answer to another id, is told where no other answer
// can come: a JSON body (which then ends with what the listener returns),
// a stream with no event id (which ends as it came: the go-sdk ends the
// request). An answer to the request (an unended last event too), a
// stream that can be resumed, an event too large to read, an error page,
// a body with no answer at all, a GET: nothing told, io.EOF.
func TestUnanswered(t *testing.T) {
	const (
		call   = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`
		stray  = `{"jsonrpc":"2.0","id":987654,"result":{}}`
		answer = `{"jsonrpc":"2.0","id":3,"result":{}}`
		note   = `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`
	)
	ended := errors.New("ended unanswered")
	for _, c := range []struct {
		name, method, sent string
		answer             canned
		want               string // what the listener heard, "" for nothing
	}{
		{"a JSON stray", "POST", call, canned{200, "application/json", stray}, "3 987654 false"},
		{"a stream's stray", "POST", call, canned{200, "text/event-stream", "data: " + note + "\n\ndata: " + stray + "\n\n"}, "3 987654 true"},
		{"a stray, then the answer", "POST", call, canned{200, "text/event-stream", "data: " + stray + "\n\ndata: " + answer + "\n\n"}, ""},
		{"a stray, then the answer left unended", "POST", call, canned{200, "text/event-stream", "data: " + stray + "\n\ndata: " + answer}, ""},
		{"a stray, then an event too large", "POST", call, canned{200, "text/event-stream", "data: " + stray + "\n\ndata: " + strings.Repeat("x", MaxMessage+1) + "\n\n"}, ""},
		{"the answer", "POST", call, canned{200, "application/json", answer}, ""},
		{"a stream that can be resumed", "POST", call, canned{200, "text/event-stream", "id: 1\ndata: " + stray + "\n\n"}, ""},
		{"an error page", "POST", call, canned{500, "application/json", stray}, ""},
		{"no answer at all", "POST", call, canned{200, "text/event-stream", "data: " + note + "\n\n"}, ""},
		{"a notification sent", "POST", note, canned{200, "application/json", stray}, ""},
		{"a GET stream", "GET", "", canned{200, "text/event-stream", "data: " + stray + "\n\n"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var heard []string
			u := func(awaited, other jsonrpc.ID, stream bool) error {
				heard = append(heard, fmt.Sprint(awaited.Raw(), other.Raw(), stream))
				return ended
			}
			rt := watchingRoundTripper(c.answer, listeners{unanswered: u})
			var body io.Reader
			if c.sent != "" {
				body = strings.NewReader(c.sent)
			}
			req, _ := http.NewRequest(c.method, "http://server.test/mcp", body)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			if string(got) != c.answer.body {
				t.Errorf("the body read %q, want it whole", got)
			}
			wantErr := error(nil)
			if c.want != "" && c.answer.media == "application/json" {
				wantErr = ended
			}
			if err != wantErr || strings.Join(heard, "; ") != c.want {
				t.Errorf("read: %v, heard %q; want %v, %q", err, heard, wantErr, c.want)
			}
			if _, again := resp.Body.Read(make([]byte, 1)); wantErr != nil && again != ended {
				t.Errorf("a read after the end: %v, want %v again", again, ended)
			}
		})
	}
}
