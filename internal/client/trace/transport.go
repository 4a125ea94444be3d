package trace

import (
	"encoding/json"
	"fmt"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Observe records one JSON-RPC message the client sent or received: a
// wire.Observer, for sessions that observe their wire (session.Options.Observe).
func (r *Recorder) Observe(sent bool, msg jsonrpc.Message) {
	if sent {
		r.message(Out, msg)
	} else {
		r.message(In, msg)
	}
}

// message records one JSON-RPC message.
func (r *Recorder) message(dir string, msg jsonrpc.Message) {
	now := r.opts.Now()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		e := Event{Dir: dir, Method: m.Method, Params: m.Params}
		if m.ID.IsValid() {
			e.Kind, e.ID = KindRequest, m.ID.Raw()
			r.begin(pendingKey(dir, m.ID.Raw()), m.Method, now)
		} else {
			e.Kind = KindNotification
		}
		r.emit(e, now)
	case *jsonrpc.Response:
		// A response answers a request that went the other way.
		other := In
		if dir == In {
			other = Out
		}
		method, latency := r.end(pendingKey(other, m.ID.Raw()), now)
		e := Event{Dir: dir, Kind: KindResponse, ID: m.ID.Raw(), Method: method, Latency: latency, Result: m.Result}
		if u, ok := m.Extra.(recording.UntiedID); ok && u.Null && !m.ID.IsValid() {
			// An error tied to no request, its id null as the server
			// sent it (one sent without an id is shown without).
			e.ID = json.RawMessage("null")
		}
		if m.Error != nil {
			e.Kind, e.Result = KindError, nil
			e.Error = errorJSON(m.Error)
		} else if dir == In && method != "" {
			r.keep(method, m.Result)
		}
		r.emit(e, now)
	default:
		r.emit(Event{Dir: dir, Kind: KindInfo, Info: map[string]any{"message": fmt.Sprintf("%T", msg)}}, now)
	}
}

func pendingKey(dir string, id any) string {
	b, _ := json.Marshal(id)
	return dir + " " + string(b)
}

func errorJSON(err error) json.RawMessage {
	if w, ok := err.(*jsonrpc.Error); ok {
		b, _ := json.Marshal(w)
		return b
	}
	b, _ := json.Marshal(map[string]string{"message": err.Error()})
	return b
}
