//lint:file-ignore SA1019 sampling and roots are deprecated but still part of the protocol; clients may declare them.

package ask_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probe is a tool that reports what ask sees on its request.
func probe(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	url := &mcp.ElicitParams{Mode: "url", Message: "m", URL: "https://example.invalid/"}
	form := &mcp.ElicitParams{Message: "m", RequestedSchema: map[string]any{"type": "object"}}
	sampling := &mcp.CreateMessageParams{MaxTokens: 1}
	roots := &mcp.ListRootsParams{}
	var b strings.Builder
	b.WriteString(ask.Modes(req).String())
	for name, q := range map[string]mcp.InputRequest{"form": form, "url": url, "sampling": sampling, "roots": roots} {
		if ask.Permits(req, q) {
			b.WriteString(" +" + name)
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil, nil
}

// seen connects a real client to a real server over in-memory transports,
// calls the probe tool and returns what it reported.
func seen(t *testing.T, version string, opts *mcp.ClientOptions) string {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "probe"}, probe)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	// Permits lines come from a map: sort them for comparison.
	fields := strings.Fields(got)
	head, rest := fields[0], fields[1:]
	sortStrings(rest)
	return strings.Join(append([]string{head}, rest...), " ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func elicit(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "decline"}, nil
}

func TestModesFromRealClients(t *testing.T) {
	noRoots := &mcp.ClientCapabilities{}
	formAndURL := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	urlOnly := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
	emptyElicitation := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
	sampling := func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) { return nil, nil }

	tests := []struct {
		name, version string
		opts          *mcp.ClientOptions
		want          string
	}{
		// 2026-07-28: the capabilities travel in each request's _meta.
		{"2026 no elicitation", "2026-07-28", &mcp.ClientOptions{Capabilities: noRoots}, "none"},
		{"2026 default roots", "2026-07-28", nil, "none +roots"},
		{"2026 handler", "2026-07-28", &mcp.ClientOptions{Capabilities: noRoots, ElicitationHandler: elicit}, "form +form"},
		{"2026 form and url", "2026-07-28", &mcp.ClientOptions{Capabilities: formAndURL, ElicitationHandler: elicit}, "form+url +form +url"},
		{"2026 url only", "2026-07-28", &mcp.ClientOptions{Capabilities: urlOnly, ElicitationHandler: elicit}, "url +url"},
		{"2026 empty elicitation", "2026-07-28", &mcp.ClientOptions{Capabilities: emptyElicitation, ElicitationHandler: elicit}, "form +form"},
		{"2026 sampling", "2026-07-28", &mcp.ClientOptions{Capabilities: noRoots, CreateMessageHandler: sampling}, "none +sampling"},
		// 2025-11-25 and older: from the session's initialize.
		{"2025-11 no elicitation", "2025-11-25", &mcp.ClientOptions{Capabilities: noRoots}, "none"},
		{"2025-11 handler", "2025-11-25", &mcp.ClientOptions{Capabilities: noRoots, ElicitationHandler: elicit}, "form +form"},
		{"2025-11 form and url", "2025-11-25", &mcp.ClientOptions{Capabilities: formAndURL, ElicitationHandler: elicit}, "form+url +form +url"},
		{"2025-06 handler", "2025-06-18", &mcp.ClientOptions{Capabilities: noRoots, ElicitationHandler: elicit}, "form +form"},
		{"2025-06 url not in that version", "2025-06-18", &mcp.ClientOptions{Capabilities: formAndURL, ElicitationHandler: elicit}, "form +form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seen(t, tt.version, tt.opts); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestModeHas(t *testing.T) {
	if ask.None.Has(ask.None) || ask.Form.Has(ask.URL) || !(ask.Form | ask.URL).Has(ask.URL) || !(ask.Form | ask.URL).Has(ask.Form|ask.URL) {
		t.Error("Mode.Has is wrong")
	}
	if ask.Modes(nil) != ask.None {
		t.Error("Modes(nil) != None")
	}
}

func TestFilter(t *testing.T) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}},
	}}}
	qs := mcp.InputRequestMap{
		"name":     &mcp.ElicitParams{Message: "?"},
		"greeting": &mcp.CreateMessageParams{MaxTokens: 5},
		"tools":    &mcp.CreateMessageWithToolsParams{MaxTokens: 5, Tools: []*mcp.Tool{{Name: "t"}}},
		"roots":    &mcp.ListRootsParams{},
	}
	got := ask.Filter(req, qs)
	if len(got) != 1 || got["greeting"] == nil {
		t.Fatalf("Filter kept %v, want only greeting", got)
	}
	if ask.Filter(req, mcp.InputRequestMap{"x": &mcp.ElicitParams{}}) != nil {
		t.Error("Filter with nothing permitted is not nil")
	}
}

// TestModesReadsTheDecodedMeta: a 2026-07-28 request's capabilities are read
// from the _meta the go-sdk decoded, and give the modes that decoding them
// again (ClientCapabilities) gives, for every shape the go-sdk accepts;
// anything else is asked of the request.
func TestModesReadsTheDecodedMeta(t *testing.T) {
	for _, caps := range []any{
		map[string]any{},
		map[string]any{"elicitation": nil},
		map[string]any{"elicitation": map[string]any{}},
		map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		map[string]any{"elicitation": map[string]any{"url": map[string]any{}}},
		map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
		map[string]any{"elicitation": map[string]any{"form": nil, "url": map[string]any{}}},
		map[string]any{"elicitation": map[string]any{"other": map[string]any{}}},
		map[string]any{"elicitation": map[string]any{"Form": map[string]any{}}},
		map[string]any{"Elicitation": map[string]any{}},
		map[string]any{"elicitation": "yes"},
		map[string]any{"elicitation": map[string]any{"form": true}},
		map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"url": map[string]any{}}},
		"not an object",
	} {
		for _, version := range []string{"2026-07-28", "2025-11-25", ""} {
			meta := mcp.Meta{mcp.MetaKeyClientCapabilities: caps}
			if version != "" {
				meta[mcp.MetaKeyProtocolVersion] = version
			}
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta}}
			want := ask.None
			if c := req.ClientCapabilities(); c != nil && c.Elicitation != nil {
				if c.Elicitation.Form != nil || c.Elicitation.URL == nil {
					want |= ask.Form
				}
				if c.Elicitation.URL != nil && (version == "" || version >= "2025-11-25") {
					want |= ask.URL
				}
			}
			if got := ask.Modes(req); got != want {
				t.Errorf("capabilities %v, version %q: Modes %v, decoded again %v", caps, version, got, want)
			}
		}
	}
	if got := ask.Modes(&mcp.CallToolRequest{}); got != ask.None {
		t.Errorf("a request without params: %v", got)
	}
}
