package trace

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Middleware returns go-sdk method middleware that records what passes
// through a client session: for each request its params, then its result
// or error with the time it took; for each notification its params. It is
// meant to be installed as both sending and receiving middleware; the
// direction is told by the method (requests a server sends a client, such
// as elicitation/create, are In). It sees typed values re-encoded, not the
// wire: ids are unknown and fields the go-sdk does not model are missing.
// Prefer Transport where the transport can be wrapped.
func (r *Recorder) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			dir := directionOf(method)
			begin := r.opts.Now()
			kind := KindRequest
			if strings.HasPrefix(method, "notifications/") {
				kind = KindNotification
			}
			var params json.RawMessage
			if req != nil {
				params = encode(req.GetParams())
			}
			r.emit(Event{Dir: dir, Kind: kind, Method: method, Params: params}, begin)
			res, err := next(ctx, method, req)
			if kind == KindNotification {
				return res, err
			}
			end := r.opts.Now()
			l := ms(end.Sub(begin))
			back := In
			if dir == In {
				back = Out
			}
			e := Event{Dir: back, Kind: KindResponse, Method: method, Latency: &l}
			if err != nil {
				e.Kind = KindError
				e.Error = errorJSON(err)
			} else {
				e.Result = encode(res)
			}
			r.emit(e, end)
			return res, err
		}
	}
}

// serverToClient are the requests a server sends a client.
var serverToClient = map[string]bool{
	"elicitation/create":     true,
	"sampling/createMessage": true,
	"roots/list":             true,
}

// clientNotifications are the notifications a client sends.
var clientNotifications = map[string]bool{
	"notifications/initialized":        true,
	"notifications/roots/list_changed": true,
}

func directionOf(method string) string {
	switch {
	case serverToClient[method]:
		return In
	case strings.HasPrefix(method, "notifications/") && !clientNotifications[method]:
		return In
	}
	return Out
}

func encode(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unencodable": err.Error()})
	}
	if string(b) == "null" {
		return nil
	}
	return b
}
