package session

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fieldOrder records the order of the fields of the forms it is asked.
type fieldOrder struct{ names [][]string }

func (f *fieldOrder) Answer(_ context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	var names []string
	if q.Form != nil {
		for _, fl := range q.Form.Fields {
			names = append(names, fl.Name)
		}
	}
	f.names = append(f.names, names)
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// A form's fields come in the order the server wrote its properties (not
// by name, nor required first), over HTTP and over a connection that hands
// over decoded messages, in both protocol eras.
func TestFormFieldsInTheServersOrder(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"},"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}`)
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "Who?", RequestedSchema: schema}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	dial := func() (mcp.Transport, func(), error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	for name, tg := range map[string]*target.Target{"http": {URL: hs.URL}, "decoded": {Dial: dial}} {
		for _, protocol := range []string{"", "2025-11-25"} {
			rec := &fieldOrder{}
			s, err := Open(context.Background(), Options{Target: tg, Timeout: 30 * time.Second, Protocol: protocol,
				Capabilities: Capabilities{Form: true}, Answerer: rec})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = s.CallTool(context.Background(), "ask", nil, nil)
			s.Close()
			if err != nil {
				t.Fatalf("%s %s: %v", name, protocol, err)
			}
			if len(rec.names) != 1 || !slices.Equal(rec.names[0], []string{"zone", "name", "age"}) {
				t.Errorf("%s %q: fields %v, want [zone name age]", name, protocol, rec.names)
			}
		}
	}
}
