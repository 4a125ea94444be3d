package connect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// request builds a tools/call request as the go-sdk hands it to a handler: the user from
// MCP authorization, the capabilities from the per-request _meta.
func request(user string, caps map[string]any, answers mcp.InputResponseMap) *mcp.CallToolRequest {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "create_issue", InputResponses: answers}}
	if caps != nil {
		req.Params.Meta = mcp.Meta{
			mcp.MetaKeyProtocolVersion:    "2026-07-28",
			mcp.MetaKeyClientCapabilities: caps,
		}
	}
	if user != "" {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
	}
	return req
}

var (
	capsURL   = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}
	capsForm  = map[string]any{"elicitation": map[string]any{}}
	capsNone  = map[string]any{}
	accept    = mcp.InputResponseMap{"connect_github": &mcp.ElicitResult{Action: "accept"}}
	declined  = mcp.InputResponseMap{"connect_github": &mcp.ElicitResult{Action: "decline"}}
	cancelled = mcp.InputResponseMap{"connect_github": &mcp.ElicitResult{Action: "cancel"}}
)

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestRequire(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()

	t.Run("no user from MCP authorization", func(t *testing.T) {
		_, _, err := f.c.Require(ctx, request("", capsURL, nil), "github")
		if !errors.Is(err, ErrNoUser) {
			t.Fatalf("err = %v, want ErrNoUser", err)
		}
	})
	t.Run("asks by URL when the client declared it", func(t *testing.T) {
		tok, res, err := f.c.Require(ctx, request("alice", capsURL, nil), "github")
		if err != nil || tok != nil || res == nil {
			t.Fatalf("Require = %v, %v, %v", tok, res, err)
		}
		q, ok := res.InputRequests["connect_github"].(*mcp.ElicitParams)
		if !ok || q.Mode != "url" || !strings.HasPrefix(q.URL, f.srv.URL+"/connect/github?t=") {
			t.Fatalf("question = %#v", res.InputRequests)
		}
		if len(res.Content) != 0 {
			t.Fatal("a question must not carry content")
		}
		if strings.Contains(q.URL, "alice") {
			t.Fatalf("the link names the user: %s", q.URL)
		}
	})
	t.Run("asks again after accept while not connected", func(t *testing.T) {
		_, res, _ := f.c.Require(ctx, request("alice", capsURL, accept), "github")
		if res == nil || res.InputRequests["connect_github"] == nil {
			t.Fatalf("want the question again, got %#v", res)
		}
	})
	for name, c := range map[string]struct {
		caps    map[string]any
		answers mcp.InputResponseMap
		want    string
	}{
		"no elicitation declared": {capsNone, nil, "cannot ask this client to open a link"},
		"forms only":              {capsForm, nil, "cannot ask this client to open a link"},
		"no capabilities at all":  {nil, nil, "cannot ask this client to open a link"},
		"declined":                {capsURL, declined, "you chose not to connect"},
		"cancelled":               {capsURL, cancelled, "was cancelled"},
	} {
		t.Run(name, func(t *testing.T) {
			tok, res, err := f.c.Require(ctx, request("alice", c.caps, c.answers), "github")
			if err != nil || tok != nil || res == nil {
				t.Fatalf("Require = %v, %v, %v", tok, res, err)
			}
			if len(res.InputRequests) != 0 || res.IsError {
				t.Fatalf("want a normal result, got %#v", res)
			}
			if !strings.Contains(text(res), c.want) {
				t.Fatalf("result %q does not say %q", text(res), c.want)
			}
		})
	}
	t.Run("URL declared on a protocol without URL mode", func(t *testing.T) {
		req := request("alice", capsURL, nil)
		req.Params.Meta[mcp.MetaKeyProtocolVersion] = "2025-06-18"
		_, res, err := f.c.Require(ctx, req, "github")
		if err != nil || res == nil || len(res.InputRequests) != 0 {
			t.Fatalf("Require = %#v, %v; want a normal result", res, err)
		}
	})
	t.Run("connected", func(t *testing.T) {
		f.store.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "gho_alice"})
		tok, res, err := f.c.Require(ctx, request("alice", capsNone, nil), "github")
		if err != nil || res != nil || tok == nil || tok.AccessToken != "gho_alice" {
			t.Fatalf("Require = %v, %v, %v", tok, res, err)
		}
		// Bob is still not connected: tokens are per user.
		_, res, _ = f.c.Require(ctx, request("bob", capsURL, nil), "github")
		if res == nil || res.InputRequests == nil {
			t.Fatal("bob got alice's connection")
		}
	})
	t.Run("unknown provider", func(t *testing.T) {
		if _, _, err := f.c.Require(ctx, request("alice", capsURL, nil), "gitlab"); err == nil {
			t.Fatal("Require accepted an unknown provider")
		}
	})
}

// A client on protocol 2025-11-25 gets the question as elicitation/create (the go-sdk
// translates it) and the handler runs once more: it must then say what to do instead of
// asking a second time.
func TestOlderClientIsToldToFinishInTheBrowser(t *testing.T) {
	f := newFixture(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "create_issue"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, res, err := f.c.Require(ctx, req, "github")
		if res == nil && err == nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}
		}
		return res, nil, err
	})
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != "alice-token" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := httptest.NewServer(h)
	defer srv.Close()

	var asked []*mcp.ElicitParams
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearer("alice-token")},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Mode != "url" {
		t.Fatalf("the older client was asked %d times: %#v", len(asked), asked)
	}
	if got := text(res); !strings.Contains(got, "Finish connecting your GitHub account in the browser") {
		t.Fatalf("result %q", got)
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func TestUserIgnoresWhatTheClientSays(t *testing.T) {
	f := newFixture(t)
	req := request("", capsURL, nil)
	req.Params.Meta["user"] = "alice"
	req.Params.Meta["sub"] = "alice"
	req.Params.Meta[mcp.MetaKeyClientInfo] = map[string]any{"name": "alice"}
	if u, err := f.c.User(req); err == nil {
		t.Fatalf("User took %q from the client's word", u)
	}
	if u, err := f.c.User(request("bob", nil, nil)); err != nil || u != "bob" {
		t.Fatalf("User = %q, %v", u, err)
	}
}

// The MCP user is the same whether the verifier names it in TokenInfo.UserID or only
// in the "sub" claim: Require finds that user's token, and asks another user's link
// for that user, never for nobody.
func TestUserFromEitherKindOfVerifier(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.store.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "alice-token"}); err != nil {
		t.Fatal(err)
	}
	subRequest := func(user string) *mcp.CallToolRequest {
		req := request("", capsURL, nil)
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{Extra: map[string]any{"sub": user}}}
		return req
	}
	for name, req := range map[string]func(string) *mcp.CallToolRequest{
		"UserID": func(u string) *mcp.CallToolRequest { return request(u, capsURL, nil) },
		"sub":    subRequest,
	} {
		tok, _, err := f.c.Require(ctx, req("alice"), "github")
		if err != nil || tok == nil || tok.AccessToken != "alice-token" {
			t.Errorf("%s: Require as alice = %v, %v; want alice's token", name, tok, err)
		}
		_, res, err := f.c.Require(ctx, req("bob"), "github")
		if err != nil || res == nil {
			t.Fatalf("%s: Require as bob = %v, %v", name, res, err)
		}
		q := res.InputRequests["connect_github"].(*mcp.ElicitParams)
		cl, k, err := f.c.parseLinkToken(tokenOf(t, q.URL), "github")
		if err != nil || cl.UserHash != f.c.userHash(k, "bob") {
			t.Errorf("%s: bob's link is not bound to bob: %+v, %v", name, cl, err)
		}
	}
}
