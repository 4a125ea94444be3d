package session

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's request sent with no params (roots/list most often is) reaches
// the client as a nil pointer of its params' type: reading which task it is
// about must not panic (the reference filesystem server crashed the tester).
func TestRelatedTaskOfRequestsWithoutParams(t *testing.T) {
	for _, req := range []mcp.Request{
		&mcp.ListRootsRequest{},
		&mcp.ElicitRequest{},
		&mcp.CreateMessageRequest{},
		&mcp.CreateMessageWithToolsRequest{},
	} {
		if id := relatedTask(req); id != "" {
			t.Errorf("relatedTask(%T with no params) = %q, want none", req, id)
		}
	}
	req := &mcp.ElicitRequest{Params: &mcp.ElicitParams{Meta: mcp.Meta{relatedTaskKey: map[string]any{"taskId": "t1"}}}}
	if id := relatedTask(req); id != "t1" {
		t.Errorf("relatedTask = %q, want t1", id)
	}
}
