package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// maxRoutingPeek bounds how much of a request body RoutingHeaders reads.
const maxRoutingPeek = 4 << 20

// RoutingHeaders wraps a Streamable HTTP handler so that a tasks/get,
// tasks/update or tasks/cancel whose Mcp-Name header names another task than
// params.taskId is refused before it reaches the server, with HTTP 400 and
// the JSON-RPC error -32020, as the Streamable HTTP header rules ask. The
// extension checks the same inside the server, where the answer goes out with
// the HTTP status the SDK picks; this wrapper adds the status code.
func RoutingHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Values("Mcp-Name")
		if r.Method != http.MethodPost || len(name) == 0 || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		orig := r.Body
		body, err := io.ReadAll(io.LimitReader(orig, maxRoutingPeek+1))
		if err != nil {
			http.Error(w, "read request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		// The handler reads what was peeked, then the rest.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), orig), orig}
		if len(body) > maxRoutingPeek {
			next.ServeHTTP(w, r)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil {
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
		resp, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      id,
			"error": map[string]any{
				"code":    CodeHeaderMismatch,
				"message": fmt.Sprintf("header mismatch: Mcp-Name %q does not match params.taskId %q", name[0], msg.Params.TaskID),
			},
		})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(resp)
	})
}
