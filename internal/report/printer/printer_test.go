package printer_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// evil is what a hostile server writes into every text: a screen clear, a
// clipboard write (OSC 52), a disguised link (OSC 8), a C1 CSI, DEL, a
// right-to-left override and a carriage return that would hide the line.
const evil = "x\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]8;;https://evil.example\x1b\\l\x1b]8;;\x1b\\\u009b31m\x7f\u202e\u2066\rEVIL"

func TestTextShowsNothingRaw(t *testing.T) {
	var b bytes.Buffer
	printer.Elicit(&b, exchange.Entry{Params: &mcp.ElicitParams{Mode: "url", Message: evil, URL: "https://a.example/" + evil},
		Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"k": evil}}})
	printer.ToolResult(&b, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		&mcp.TextContent{Text: evil},
		&mcp.ImageContent{MIMEType: evil, Data: []byte("x")},
		&mcp.AudioContent{MIMEType: evil},
		&mcp.ResourceLink{Name: evil, URI: evil, MIMEType: evil, Description: evil},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: evil, MIMEType: evil, Text: evil}},
	}, StructuredContent: map[string]any{evil: evil}})
	printer.PromptResult(&b, &mcp.GetPromptResult{Description: evil, Messages: []*mcp.PromptMessage{{Role: mcp.Role(evil), Content: &mcp.TextContent{Text: evil}}}})
	printer.ResourceResult(&b, &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: evil, MIMEType: evil, Text: evil}}})
	if termsafe.Has(b.String()) {
		t.Errorf("text output keeps raw control characters:\n%q", b.String())
	}
	if !strings.Contains(b.String(), `x\x1b[2J`) || !strings.Contains(b.String(), `\u202e`) {
		t.Errorf("the escapes are not shown:\n%s", b.String())
	}
	// The server cannot forge a line of its own: the [ELICIT] line stays one.
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(first, "→ accept") {
		t.Errorf("the [ELICIT] line was broken: %q", first)
	}
}

func TestJSONIsOneDocumentWithNothingRaw(t *testing.T) {
	var b bytes.Buffer
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: evil}}, StructuredContent: map[string]any{"k": evil}}
	if err := printer.JSON(&b, res); err != nil {
		t.Fatal(err)
	}
	if termsafe.Has(b.String()) {
		t.Errorf("JSON keeps raw control characters:\n%q", b.String())
	}
	dec := json.NewDecoder(&b)
	var v struct {
		Content []struct{ Text string }
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON document")
	}
	if len(v.Content) != 1 || v.Content[0].Text != evil {
		t.Errorf("the text changed: %q", v.Content)
	}
}

func TestDeployLinesUnchanged(t *testing.T) {
	var b bytes.Buffer
	printer.Elicit(&b, exchange.Entry{Params: &mcp.ElicitParams{Message: "Roll out auth-service version 2.4.1 – where to?"},
		Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}})
	printer.ToolResult(&b, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Rolling out auth-service 2.4.1 to production.\n\tindented"}}})
	want := "[ELICIT] Roll out auth-service version 2.4.1 – where to? → accept {\"confirm\":true,\"environment\":\"production\"}\nContent 0 (Text):\nRolling out auth-service 2.4.1 to production.\n\tindented\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}
