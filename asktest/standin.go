package asktest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/standin"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StandInOptions say how a [StandIn] serves its recording. The zero value
// (or nil) checks each answer of the client against the recorded one.
type StandInOptions struct {
	// SchemaOnly checks each answer against its question's form only,
	// not against the answer recorded.
	SchemaOnly bool
	// Faults are injected into the requests they name, written as
	// mcp-tester serve --fault takes them: METHOD[ NAME]:ACTION, such as
	// "tools/call:delay=2s", "tools/call deploy:error=-32603:boom" or
	// "tools/list:drop".
	Faults []string
}

// StandIn is a recording of a server (mcp-tester proxy -o FILE) served as
// that server, for testing a Go client: what mcp-tester serve does. Each
// request of the client is answered as recorded (its questions asked
// again, in the era the client speaks), and each answer the client gives
// is checked against the recorded one. When the test ends, every way the
// client differed from the recording fails it, as it fails mcp-tester
// serve: an answer that differs, a request the recording does not hold, a
// question left unanswered, a recorded call the client never made (or
// made fewer times than recorded), a recorded task it did not cancel, or
// cancelled where the recording did not.
type StandIn struct {
	tb   testing.TB
	name string
	s    *standin.Standin
	tr   *tracker

	mu  sync.Mutex
	web *httptest.Server
}

// NewStandIn reads the recording at path and serves it until the test
// ends. A recording it cannot read or serve fails the test, naming its
// line.
func NewStandIn(tb testing.TB, path string, opts *StandInOptions) *StandIn {
	tb.Helper()
	if opts == nil {
		opts = &StandInOptions{}
	}
	rec, err := recording.ReadFile(path, recording.ReadOptions{})
	if err != nil {
		tb.Fatalf("asktest: %v", err)
	}
	sc, err := standin.Build(rec)
	if err != nil {
		tb.Fatalf("asktest: %v", recording.InFile(path, err))
	}
	for _, w := range sc.Warnings {
		tb.Logf("asktest: %v", recording.InFile(path, w))
	}
	// EveryCall, as mcp-tester serve: a recorded call the client never
	// made (or made fewer times), and a recorded task it did not drive as
	// recorded, are differences too.
	so := standin.Options{Recording: path, Answers: standin.AnswersExact, EveryCall: true}
	if opts.SchemaOnly {
		so.Answers = standin.AnswersSchema
	}
	for _, spec := range opts.Faults {
		fault, err := standin.ParseFault(spec)
		if err != nil {
			tb.Fatalf("asktest: StandInOptions.Faults: %v", err)
		}
		so.Faults = append(so.Faults, fault)
	}
	s, err := standin.New(sc, so)
	if err != nil {
		tb.Fatalf("asktest: %s: %v", path, err)
	}
	st := &StandIn{tb: tb, name: path, s: s, tr: &tracker{}}
	tb.Cleanup(st.close)
	return st
}

// Server is the stand-in as a go-sdk server, for a client to connect to
// in memory (or over a transport of its own); [StandIn.Transport] does
// the connecting.
func (st *StandIn) Server() *mcp.Server { return st.s.Server() }

// Transport returns the client's end of a new in-memory connection to the
// stand-in, for the client under test to connect through; the server's end
// is closed when the test ends.
func (st *StandIn) Transport() mcp.Transport {
	st.tb.Helper()
	server, client := mcp.NewInMemoryTransports()
	ss, err := st.s.Server().Connect(context.Background(), server, nil)
	if err != nil {
		st.tb.Fatalf("asktest: serve %s: %v", st.name, err)
	}
	hangUp := st.tr.serving(ss)
	st.tb.Cleanup(hangUp)
	return client
}

// URL is the address of the stand-in over Streamable HTTP, for both eras
// (2026-07-28 requests stateless, 2025-11-25 clients in sessions); it is
// served from the first call until the test ends.
func (st *StandIn) URL() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.web == nil {
		st.web = httptest.NewServer(st.s.Handler(standin.HTTPOptions{}))
	}
	return st.web.URL + "/mcp"
}

// close ends the stand-in and fails the test for each way the client
// differed from the recording.
func (st *StandIn) close() {
	st.mu.Lock()
	web := st.web
	st.mu.Unlock()
	if web != nil {
		web.CloseClientConnections()
		web.Close()
	}
	st.s.End()
	for _, l := range st.tr.left() {
		st.tb.Errorf("asktest: %s", l)
	}
	r := st.s.Report()
	for _, p := range r.Problems {
		where := st.name
		if p.Line > 0 {
			where = fmt.Sprintf("%s:%d", st.name, p.Line)
		}
		msg := fmt.Sprintf("%s: %s: %s: %s", where, p.Kind, termsafe.Line(p.Request), termsafe.Line(p.Detail))
		// The detail says what differs; what it leaves out follows it.
		if len(p.Recorded) > 0 && !strings.Contains(p.Detail, string(p.Recorded)) {
			msg += "\n  recorded: " + termsafe.Line(string(p.Recorded))
		}
		if len(p.Got) > 0 && !strings.Contains(p.Detail, string(p.Got)) {
			msg += "\n  got:      " + termsafe.Line(string(p.Got))
		}
		st.tb.Errorf("asktest: the client differs from the recording: %s", msg)
	}
	if r.Dropped > 0 {
		st.tb.Errorf("asktest: %d more difference(s) from %s", r.Dropped, st.name)
	}
}
