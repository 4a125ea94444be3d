package connect_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"

	"github.com/askback/askback/connect"
	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/keys"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// signedInUser stands for the server's own browser sign-in.
type signedInUser struct{}

func (signedInUser) User(r *http.Request) (string, error) {
	if c, err := r.Cookie("session"); err == nil {
		return lookUpSession(c.Value), nil
	}
	return "", nil
}

func (signedInUser) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin?return="+returnTo, http.StatusSeeOther)
}

func lookUpSession(string) string { return "" }

// newConnector makes the connector of the examples: GitHub as the one
// provider, the tokens in memory.
func newConnector() (*connect.Connector, error) {
	secret := make([]byte, 32)
	rand.Read(secret)
	return connect.New(&connect.Options{
		BaseURL: "https://mcp.example.com/connect",
		Keys:    []keys.Key{{ID: "2026-12", Secret: secret}},
		Providers: []connect.Provider{{
			Name:  "github",
			Title: "GitHub",
			OAuth2: oauth2.Config{
				ClientID:     "client-id",
				ClientSecret: "client-secret",
				Endpoint: oauth2.Endpoint{
					AuthURL:  "https://github.com/login/oauth/authorize",
					TokenURL: "https://github.com/login/oauth/access_token",
				},
				Scopes: []string{"repo"},
			},
		}},
		BrowserAuth: signedInUser{},
		Store:       tokenstore.NewMemory(),
		ServerName:  "Example MCP",
	})
}

func Example() {
	c, err := newConnector()
	if err != nil {
		fmt.Println(err)
		return
	}

	// The browser side: mount the handler at the path of BaseURL.
	mux := http.NewServeMux()
	mux.Handle("/connect/", c)

	// The tool side: the question for a user whose GitHub is not connected yet.
	q, _ := c.Ask("alice", "github")
	fmt.Println(q.Mode)
	fmt.Println(strings.HasPrefix(q.URL, "https://mcp.example.com/connect/github?t=2026-12."))
	fmt.Println(strings.Contains(q.URL, "alice"))
	fmt.Println(c.CallbackURL("github"))
	// Output:
	// url
	// true
	// false
	// https://mcp.example.com/connect/github/callback
}

// A tool handler that needs the caller's GitHub token: Require returns the token, or the
// result to return (a URL question, or a normal result when the client cannot be asked).
func ExampleConnector_Require() {
	c, err := newConnector()
	if err != nil {
		fmt.Println(err)
		return
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest, in struct{ Repo string }) (*mcp.CallToolResult, any, error) {
		tok, ask, err := c.Require(ctx, req, "github")
		if err != nil {
			return nil, nil, err
		}
		if ask != nil {
			return ask, nil, nil
		}
		// Call GitHub with tok; never put tok into the result.
		_ = tok
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	}

	// alice (from MCP authorization) has not connected GitHub yet; her client
	// declared URL questions: the tool asks her to open the connect link.
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "create_issue", Meta: mcp.Meta{
			mcp.MetaKeyProtocolVersion:    "2026-07-28",
			mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}},
		}},
		Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}},
	}
	res, _, err := handler(context.Background(), req, struct{ Repo string }{"askback"})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := res.InputRequests[connect.InputKey("github")].(*mcp.ElicitParams)
	fmt.Println(q.Mode, strings.HasPrefix(q.URL, "https://mcp.example.com/connect/github?"))
	// Output:
	// url true
}
