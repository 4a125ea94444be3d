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

// inMemory dials srv in this process, over a connection that hands over
// decoded messages.
func inMemory(srv *mcp.Server) func() (mcp.Transport, func(), error) {
	return func() (mcp.Transport, func(), error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
}

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
	dial := inMemory(srv)
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

// laterSeen records, for each question it is asked, the keys of its
// round's later questions and the fields of their forms.
type laterSeen struct{ asked []string }

func (l *laterSeen) Answer(_ context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	line := q.Key + ":"
	for _, o := range q.Later {
		line += " " + o.Key + "(" + o.Mode()
		if o.Form != nil {
			for _, f := range o.Form.Fields {
				line += " " + f.Name
			}
		}
		line += ")"
	}
	l.asked = append(l.asked, line)
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// The first elicitation of a round that asks several carries the others
// (Later), in the order they will be asked, each form's fields in the
// order the server wrote them; a form outside the form subset is left out,
// and the questions after the first carry none.
func TestRoundLaterQuestions(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) > 0 {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"a": &mcp.ElicitParams{Message: "Where?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"}}}`)},
				"b": &mcp.ElicitParams{Message: "Who?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}},"required":["mid"]}`)},
				"c": &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/sign-in", ElicitationID: "e1"},
				"d": &mcp.ElicitParams{Message: "Nested?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"o":{"type":"object"}}}`)},
			}}, nil
		})
	dial := inMemory(srv)
	seen := &laterSeen{}
	s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Timeout: 30 * time.Second, Protocol: "2026-07-28",
		Capabilities: Capabilities{Form: true, URL: true}, Answerer: seen, Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, _, err = s.CallTool(context.Background(), "ask", nil, nil)
	if err == nil {
		t.Fatal("the form outside the form subset was not refused in its turn")
	}
	want := []string{"a: b(form zeta alpha mid) c(url)", "b:", "c:"}
	if !slices.Equal(seen.asked, want) {
		t.Errorf("asked %q, want %q", seen.asked, want)
	}
}
