package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The other questions of a round are shown with their fields in the order
// the server wrote them, as the first one is (the session reads it as
// written): the decoded schema has lost that order.
func TestRoundFieldsInTheServersOrder(t *testing.T) {
	result := `{"resultType":"input_required","requestState":"s","inputRequests":{
		"a":{"method":"elicitation/create","params":{"mode":"form","message":"Where?","requestedSchema":{"type":"object","properties":{"region":{"type":"string"}}}}},
		"b":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}},"required":["mid"]}}}}}`
	st := readRoundState(false, &jsonrpc.Response{Result: json.RawMessage(result)})
	if !st.asks || len(st.round) != 2 {
		t.Fatalf("the round was not read: %+v", st)
	}
	first := st.round["a"].(*mcp.ElicitParams)
	form, err := formschema.Parse(first.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	q := &answer.Question{Key: "a", Round: 1, Via: exchange.ViaInputRequired, Params: first, Form: form}
	parts := roundParts(q, st.round, st.written)
	if len(parts) != 2 {
		t.Fatalf("%d parts, want 2", len(parts))
	}
	var names []string
	for _, f := range parts[1].Q.Form.Fields {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "zeta alpha mid" {
		t.Errorf("the second form's fields are %q, want the server's order \"zeta alpha mid\"", got)
	}
}
