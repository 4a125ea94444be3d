package subject_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func reqWith(info *auth.TokenInfo) *mcp.CallToolRequest {
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}, Extra: &mcp.RequestExtra{TokenInfo: info}}
}

func TestFromToken(t *testing.T) {
	for _, c := range []struct {
		name string
		req  mcp.Request
		want string
	}{
		{"UserID", reqWith(&auth.TokenInfo{UserID: "alice"}), "alice"},
		{"sub claim", reqWith(&auth.TokenInfo{Extra: map[string]any{"sub": "alice"}}), "alice"},
		{"UserID wins", reqWith(&auth.TokenInfo{UserID: "alice", Extra: map[string]any{"sub": "bob"}}), "alice"},
		{"sub not a string", reqWith(&auth.TokenInfo{Extra: map[string]any{"sub": 7}}), ""},
		{"no token", reqWith(nil), ""},
		{"no extra", &mcp.CallToolRequest{}, ""},
		{"nil", nil, ""},
	} {
		if got := subject.FromToken(c.req); got != c.want {
			t.Errorf("%s: FromToken = %q, want %q", c.name, got, c.want)
		}
	}
	var f subject.Func
	if got := f.Or()(reqWith(&auth.TokenInfo{UserID: "alice"})); got != "alice" {
		t.Errorf("nil Func.Or() = %q", got)
	}
}

// A verifier that leaves the user in a claim of its own is fixed once, at the
// auth layer: UserID is set, and everything that reads the token agrees.
func TestVerifierSetsUserID(t *testing.T) {
	inner := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "good" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Extra: map[string]any{"sub": "alice", "email": "alice@example.com"}}, nil
	}
	info, err := subject.Verifier(inner, nil)(context.Background(), "good", nil)
	if err != nil || info.UserID != "alice" {
		t.Fatalf("Verifier(sub) = %+v, %v", info, err)
	}
	byEmail := subject.Verifier(inner, func(i *auth.TokenInfo) string { s, _ := i.Extra["email"].(string); return s })
	if info, _ := byEmail(context.Background(), "good", nil); info.UserID != "alice@example.com" {
		t.Fatalf("Verifier(email) = %+v", info)
	}
	if _, err := subject.Verifier(inner, nil)(context.Background(), "bad", nil); err == nil {
		t.Fatal("a bad token passed the wrapped verifier")
	}
}
