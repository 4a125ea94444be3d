package eventstream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/encoding/eventstream"
)

const limit = 64

// readEvents feeds stream to a Reader in chunks of n bytes, ends it when
// end is set, and returns each event handed over, with its type, id and
// data.
func readEvents(stream string, n int, end bool) []string {
	var got []string
	r := eventstream.NewReader(limit, func(e eventstream.Event) {
		got = append(got, fmt.Sprintf("%q %q %q %v", e.Type, e.ID, e.Data, e.Over))
	})
	for len(stream) > 0 {
		k := min(n, len(stream))
		r.Write([]byte(stream[:k]))
		stream = stream[k:]
	}
	if end {
		r.End()
	}
	return got
}

// The events of a stream with their types and ids, as mcp-tester proxy
// records them: an id applies to its own event only, comments and a last
// event not ended are not handed over, an event of comments alone is none.
func TestReader(t *testing.T) {
	stream := ": hello\n\n" +
		"id: 1\r\ndata: \r\n\r\n" +
		"event: endpoint\ndata: /m?s=1\n\n" +
		"id: 7\ndata: a\ndata:b\nretry: 5\n\n" +
		"data: c\n\n" +
		"data: d\n"
	want := []string{`"" "1" "" false`, `"endpoint" "" "/m?s=1" false`, `"" "7" "a\nb" false`, `"" "" "c" false`}
	for _, n := range []int{1, 2, 5, len(stream)} {
		if got := readEvents(stream, n, false); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chunks of %d: %q, want %q", n, got, want)
		}
	}
}

// End hands over the last event a stream did not end, its last line cut
// short or not, as a client reading to the end of the stream takes it.
func TestEnd(t *testing.T) {
	for _, c := range []struct {
		stream string
		want   []string
	}{
		{"data: a\n\ndata: b\n", []string{`"" "" "a" false`, `"" "" "b" false`}},
		{"data: a\n\nid: 2\ndata: {\"x\":1}", []string{`"" "" "a" false`, `"" "2" "{\"x\":1}" false`}},
		{"data: a\n\n", []string{`"" "" "a" false`}},
		{"data: a\n\n: comment", []string{`"" "" "a" false`}},
		{"", nil},
	} {
		if got := readEvents(c.stream, 3, true); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: %q, want %q", c.stream, got, c.want)
		}
	}
}

// An event whose data outgrows the bound is handed over with Over set and
// no data; the stream goes on.
func TestBound(t *testing.T) {
	stream := "data: " + strings.Repeat("x", limit+1) + "\n\ndata: " + strings.Repeat("y", limit/2) + "\ndata: " + strings.Repeat("y", limit/2) + "\n\ndata: ok\n\n"
	want := []string{`"" "" "" true`, `"" "" "" true`, `"" "" "ok" false`}
	for _, n := range []int{1, 7, len(stream)} {
		if got := readEvents(stream, n, false); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chunks of %d: %q, want %q", n, got, want)
		}
	}
}

// However a stream is cut, the same events, with the same types, ids and
// data, are handed over, and no data is longer than the bound.
func FuzzReader(f *testing.F) {
	f.Add("id: 1\r\nevent: message\r\ndata: {}\r\n\r\n", 2)
	f.Add("event: endpoint\ndata: /message?sessionId=x\n\n", 1)
	f.Add("id\n\nid:\x00\n\ndata\r\rdata:\n\n", 3)
	f.Add("data: a\r\ndata: b", 1)
	f.Fuzz(func(t *testing.T, stream string, n int) {
		if n <= 0 {
			n = 1
		}
		for _, end := range []bool{false, true} {
			whole := readEvents(stream, len(stream)+1, end)
			if cut := readEvents(stream, n, end); fmt.Sprint(cut) != fmt.Sprint(whole) {
				t.Errorf("chunks of %d (end %v): %q, whole %q", n, end, cut, whole)
			}
		}
		r := eventstream.NewReader(limit, func(e eventstream.Event) {
			if len(e.Data) > limit {
				t.Errorf("%d bytes of data, over the bound %d", len(e.Data), limit)
			}
		})
		r.Write([]byte(stream))
		r.End()
	})
}

func ExampleReader() {
	r := eventstream.NewReader(1<<20, func(e eventstream.Event) {
		fmt.Printf("type %q id %q data %s\n", e.Type, e.ID, e.Data)
	})
	// The stream arrives in pieces; an event is handed over at its blank line.
	r.Write([]byte("id: 1\ndata: {\"jsonrpc\":"))
	r.Write([]byte("\"2.0\"}\n\nevent: endpoint\ndata: /messages\n\n"))
	r.Write([]byte("data: last"))
	r.End()
	// Output:
	// type "" id "1" data {"jsonrpc":"2.0"}
	// type "endpoint" id "" data /messages
	// type "" id "" data last
}

// A reader that cannot afford an event drops it: it arrives over its bound,
// with its id, and the next event is read whole.
func TestDrop(t *testing.T) {
	var got []eventstream.Event
	r := eventstream.NewReader(1<<20, func(e eventstream.Event) {
		e.Data = append([]byte(nil), e.Data...)
		got = append(got, e)
	})
	r.Write([]byte("data: " + strings.Repeat("x", 5000)))
	if n := r.Pending(); n < 5000 {
		t.Fatalf("Pending = %d, want the 5000 bytes of the line held", n)
	}
	r.Drop()
	if n := r.Pending(); n > 1<<10 {
		t.Errorf("Pending after Drop = %d, want at most 1 KiB", n)
	}
	r.Write([]byte(strings.Repeat("y", 5000) + "\nid: 7\n\ndata: next\n\n"))
	if len(got) != 2 || !got[0].Over || got[0].ID != "7" || len(got[0].Data) != 0 || got[1].Over || string(got[1].Data) != "next" {
		t.Errorf("events = %+v", got)
	}
}
