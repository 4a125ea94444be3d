package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RoutingHeaders wraps a Streamable HTTP handler so that a tasks/get,
// tasks/update or tasks/cancel whose Mcp-Name header names another task than
// params.taskId is refused before it reaches the server, with HTTP 400 and
// the JSON-RPC error -32020, as the Streamable HTTP header rules ask. The
// extension checks the same inside the server, where the answer goes out with
// the HTTP status the SDK picks; this wrapper adds the status code.
//
// To look, it reads the body of a POST that carries Mcp-Name before next
// does, within the server's own limits: those next declares (an
// endpoint.Handler declares its Options.HTTP.MaxRequestBodyBytes and
// BodyReadTimeout, through a BodyLimits method), tightened by any an outer
// layer of the project set on the request; else the go-sdk's default size
// limit (4 MiB) and 30 seconds. A longer body is refused with 413, a slower
// one with 408. next reads the same bytes; nothing is read twice.
//
// It reads the message exactly as the go-sdk will (keys as written:
// "TaskId" is not "taskId"), so that the task it compares with Mcp-Name
// is the one the server acts on; a message with a key twice, or anything
// after it, which readers take differently, is refused with 400 and the
// JSON-RPC error -32602 before the go-sdk reads it.
func RoutingHeaders(next http.Handler) http.Handler {
	var own reqbody.Limits
	if l, ok := next.(interface {
		BodyLimits() (max int64, timeout time.Duration)
	}); ok {
		own.Max, own.Timeout = l.BodyLimits()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Values("Mcp-Name")
		if r.Method != http.MethodPost || len(name) == 0 || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := reqbody.Read(w, r, own)
		if err != nil {
			reqbody.Refuse(w, err)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
		}
		if err := strictjson.DecodeAsSDK(body, &msg); err != nil {
			if errors.Is(err, strictjson.ErrAmbiguous) {
				refuse(w, json.RawMessage("null"), jsonrpc.CodeInvalidParams, "the request can be read two ways: "+err.Error())
				return
			}
			// Not JSON, or not a message: the go-sdk answers it.
			next.ServeHTTP(w, r)
			return
		}
		switch msg.Method {
		case MethodGet, MethodUpdate, MethodCancel:
		default:
			next.ServeHTTP(w, r)
			return
		}
		if len(name) == 1 && name[0] == msg.Params.TaskID {
			next.ServeHTTP(w, r)
			return
		}
		id := msg.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		refuse(w, id, CodeHeaderMismatch, fmt.Sprintf("header mismatch: Mcp-Name %q does not match params.taskId %q", name[0], msg.Params.TaskID))
	})
}

// refuse answers a request with HTTP 400 and a JSON-RPC error.
func refuse(w http.ResponseWriter, id json.RawMessage, code int64, message string) {
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": message},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(resp)
}
