package subject_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A verifier of JWT access tokens often leaves the user in the "sub" claim. Wrapped
// once with Verifier, its TokenInfo names the user in UserID, which the go-sdk and
// every toolkit package read.
func ExampleVerifier() {
	jwtVerifier := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{Extra: map[string]any{"sub": "alice"}}, nil
	}
	verify := subject.Verifier(jwtVerifier, nil)
	info, _ := verify(context.Background(), "a-token", nil)
	fmt.Println(info.UserID)

	req := &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: info}}
	fmt.Println(subject.FromToken(req))
	// Output:
	// alice
	// alice
}
