package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// interruptServer is a server with a tool that asks (2025-11-25
// elicitation), a prompt and a resource: what the commands of the tester
// reach. When at is set, the server interrupts the client (calls at) as
// the request of method atMethod comes, and answers it only once the test
// ends.
func interruptServer(t *testing.T, atMethod string, at context.CancelFunc) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{}, nil
		},
	})
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "arg"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	srv.AddResource(&mcp.Resource{Name: "r", URI: "mem://r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://r", Text: "r"}}}, nil
	})
	release := make(chan struct{})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if at != nil && method == atMethod {
				at()
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) }) // before hs.Close, which waits for the requests
	return hs.URL
}

// noServerJSON are the commands with --format json that talk to no
// server: nothing they do waits, so nothing is there to interrupt.
var noServerJSON = []string{"mcp-tester auth status", "mcp-tester profile list", "mcp-tester profile show", "mcp-tester version"}

// Every command with --format json, interrupted (Ctrl-C) once its session
// is open, writes one JSON document on stdout whose exitCode is the
// process's, 130: an error document of kind "interrupted", or its own
// report (test) saying so. The interrupt comes at an exact step: as the
// trace (-v) shows the notification that opens the session, after which no
// request is sent.
func TestInterruptedJSONDocument(t *testing.T) {
	t.Parallel()
	url := interruptServer(t, "", nil)
	dir := t.TempDir()
	mcpFile := filepath.Join(dir, "t.mcp")
	catFile := filepath.Join(dir, "old.json")
	if err := os.WriteFile(mcpFile, []byte("call_tool echo\nassert_contains \"accept\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ios, _, _, errOut := iostreams.Test(); Main(context.Background(), ios, []string{"catalog", "save", "-u", url, "-o", catFile}) != ExitOK {
		t.Fatalf("catalog save: %s", errOut)
	}
	cases := map[string][]string{
		"mcp-tester audit":               {"audit"},
		"mcp-tester bench":               {"bench", "echo", "--requests", "1"},
		"mcp-tester call":                {"call", "echo"},
		"mcp-tester catalog diff":        {"catalog", "diff", catFile},
		"mcp-tester complete":            {"complete", "--prompt", "p", "arg"},
		"mcp-tester grade":               {"grade"},
		"mcp-tester inspect":             {"inspect"},
		"mcp-tester list":                {"list"},
		"mcp-tester logging":             {"logging", "debug"},
		"mcp-tester ping":                {"ping"},
		"mcp-tester prompts get":         {"prompts", "get", "p"},
		"mcp-tester prompts list":        {"prompts", "list"},
		"mcp-tester resources list":      {"resources", "list"},
		"mcp-tester resources read":      {"resources", "read", "mem://r"},
		"mcp-tester resources subscribe": {"resources", "subscribe", "mem://r"},
		"mcp-tester resources templates": {"resources", "templates"},
		"mcp-tester scan":                {"scan"},
		"mcp-tester tasks cancel":        {"tasks", "cancel", "T1"},
		"mcp-tester tasks get":           {"tasks", "get", "T1"},
		"mcp-tester tasks list":          {"tasks", "list"},
		"mcp-tester tasks wait":          {"tasks", "wait", "T1"},
		"mcp-tester test":                {"test", "-s", mcpFile},
		"mcp-tester tools call":          {"tools", "call", "echo"},
		"mcp-tester tools list":          {"tools", "list"},
	}
	// Every command with --format json is here or in noServerJSON.
	ios, _, _, _ := iostreams.Test()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("format") != nil && cases[c.CommandPath()] == nil && !slices.Contains(noServerJSON, c.CommandPath()) {
			t.Errorf("%s has --format but no case here", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewRootCmd(ios))

	for name, args := range cases {
		t.Run(strings.TrimPrefix(name, "mcp-tester "), func(t *testing.T) {
			t.Parallel()
			ctx, interrupt := context.WithCancel(context.Background())
			defer interrupt()
			ios, _, out, _ := iostreams.Test()
			errOut := &interruptAt{after: `"method":"notifications/initialized"`, interrupt: interrupt}
			ios.ErrOut = errOut
			u := url
			if name == "mcp-tester inspect" {
				// inspect writes no trace (its session's stderr is
				// quiet): the server interrupts it as it lists.
				u = interruptServer(t, "tools/list", interrupt)
			}
			code := Main(ctx, ios, append(slices.Clone(args), "-u", u, "-v", "--format", "json"))
			if code != ExitInterrupted {
				t.Fatalf("exit %d, want 130; stderr:\n%s", code, errOut)
			}
			doc := oneDocument(t, out.Bytes())
			got := doc.ExitCode
			if doc.Error != nil {
				got = doc.Error.ExitCode
				if doc.Error.Kind != "interrupted" || doc.Error.Message != "interrupted" {
					t.Errorf("error %+v, want message and kind interrupted", *doc.Error)
				}
			}
			if got == nil || *got != ExitInterrupted {
				t.Errorf("stdout:\n%s\nwant exitCode 130", out)
			}
		})
	}
}

// interruptedJSON is what TestInterruptedJSONDocument reads of a document.
type interruptedJSON struct {
	ExitCode *int `json:"exitCode"`
	Error    *struct {
		Message  string `json:"message"`
		ExitCode *int   `json:"exitCode"`
		Kind     string `json:"kind"`
	} `json:"error"`
	Questions []struct {
		Message string          `json:"message"`
		Answer  json.RawMessage `json:"answer"`
	} `json:"questions"`
}

// oneDocument decodes out, which must be one JSON document and nothing
// else.
func oneDocument(t *testing.T, out []byte) interruptedJSON {
	t.Helper()
	var doc interruptedJSON
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout %q: %v, want one JSON document", out, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout %q: more than one JSON document", out)
	}
	return doc
}

// A call interrupted after it answered the server's question has that
// question, with its answer, in its error document.
func TestInterruptedCallKeepsItsQuestions(t *testing.T) {
	t.Parallel()
	url := interruptServer(t, "", nil)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	ios, _, out, _ := iostreams.Test()
	errOut := &interruptAt{after: `"action":"accept"`, interrupt: interrupt}
	ios.ErrOut = errOut
	code := Main(ctx, ios, []string{"call", "echo", "-u", url, "-v", "--format", "json", "--elicit", `accept:{"name":"Ada"}`})
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, errOut)
	}
	doc := oneDocument(t, out.Bytes())
	if doc.Error == nil || doc.Error.Kind != "interrupted" || len(doc.Questions) != 1 || doc.Questions[0].Message != "Your name?" || !strings.Contains(string(doc.Questions[0].Answer), "Ada") {
		t.Errorf("stdout:\n%s\nwant the question answered Ada and the interrupt", out)
	}
}
