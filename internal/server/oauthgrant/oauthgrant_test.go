package oauthgrant

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-oauth2/oauth2/v4/models"
)

// A token wider than its grant's consent is refused by the store itself,
// whatever asked for it: the grant of a code for mcp keeps mcp across
// refreshes (as go-oauth2 refreshes: the loaded token, its scope changed).
func TestStoreRefusesATokenBeyondItsConsent(t *testing.T) {
	ctx := context.Background()
	st := NewStore(nil, 0, 0)
	now := time.Now()
	code := &models.Token{ClientID: "c", UserID: "alice", Scope: "mcp", Code: "code1", CodeCreateAt: now, CodeExpiresIn: time.Minute}
	if err := st.Create(ctx, code); err != nil {
		t.Fatal(err)
	}
	ci, _ := st.GetByCode(ctx, "code1")
	// The exchange: a new token with the code's extension and scope.
	tok := &models.Token{ClientID: "c", UserID: "alice", Scope: ci.GetScope(), Access: "a1", AccessCreateAt: now, AccessExpiresIn: time.Hour,
		Refresh: "r1", RefreshCreateAt: now, RefreshExpiresIn: time.Hour, Extension: ci.(*models.Token).Extension}
	if err := st.Create(ctx, tok); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []string{"mcp admin", "admin", "made-up"} {
		ri, _ := st.GetByRefresh(ctx, "r1")
		wide := ri.(*models.Token)
		wide.Scope, wide.Access, wide.Refresh = scope, "a-"+scope, "r-"+scope
		if err := st.Create(ctx, wide); !errors.Is(err, ErrBeyondConsent) {
			t.Errorf("a refresh to %q: %v, want ErrBeyondConsent", scope, err)
		}
	}
	ri, _ := st.GetByRefresh(ctx, "r1")
	narrow := ri.(*models.Token)
	narrow.Scope, narrow.Access, narrow.Refresh = "", "a2", "r2"
	if err := st.Create(ctx, narrow); err != nil {
		t.Fatalf("a narrower refresh: %v", err)
	}
	if got, _ := st.GetByRefresh(ctx, "r2"); Consented(got) != "mcp" {
		t.Errorf("the narrowed grant consented to %q, want mcp", Consented(got))
	}
	// What the store hands out is a copy: changing it changes nothing.
	got, _ := st.GetByRefresh(ctx, "r2")
	got.(*models.Token).Extension.Set(consentedKey, "mcp admin")
	if again, _ := st.GetByRefresh(ctx, "r2"); Consented(again) != "mcp" {
		t.Errorf("a caller changed the stored consent to %q", Consented(again))
	}
}

func TestScope(t *testing.T) {
	r := Rule{Known: []string{"mcp", "admin", "secret"}, Withheld: "secret"}
	for _, c := range []struct {
		asked, within, want, err string
	}{
		{"", "", "", ""},
		{"admin mcp", "", "mcp admin", ""},
		{"mcp mcp", "", "mcp", ""},
		{"secret", "", "", ""},
		{"mcp made-up", "", "", `"made-up" is not one this server grants`},
		{"mcp admin", "mcp", "", `"admin" is outside the grant`},
		{"mcp", "mcp admin", "mcp", ""},
	} {
		var within []string
		if c.within != "" {
			within = strings.Fields(c.within)
		}
		got, err := r.Scope(c.asked, within, "the grant")
		var se *ScopeError
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Scope(%q within %q) = %q, %v; want %q", c.asked, c.within, got, err, c.want)
		case c.err != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Scope(%q within %q) = %q, %v; want an error with %q", c.asked, c.within, got, err, c.err)
		}
	}
}

// FuzzScope: whatever is asked, what is granted is known, within what the
// request may have, never withheld, each scope once; and it is refused
// exactly when something asked is unknown or outside.
func FuzzScope(f *testing.F) {
	for _, s := range []string{"", "mcp", "mcp admin", "admin\tmcp\nsecret", "mcp  made-up", "MCP", "mcp\u00a0admin", "mcp mcp"} {
		f.Add(s, "mcp")
		f.Add(s, "")
	}
	r := Rule{Known: []string{"mcp", "admin", "secret"}, Withheld: "secret"}
	f.Fuzz(func(t *testing.T, asked, within string) {
		var w []string
		if within != "" {
			w = strings.Fields(within)
		}
		got, err := r.Scope(asked, w, "the grant")
		bad := false
		for _, sc := range strings.Fields(asked) {
			if !slices.Contains(r.Known, sc) || (w != nil && !slices.Contains(w, sc)) {
				bad = true
			}
		}
		if bad != (err != nil) {
			t.Fatalf("Scope(%q within %q): %v, refused should be %v", asked, within, err, bad)
		}
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, sc := range strings.Fields(got) {
			if !slices.Contains(r.Known, sc) || sc == r.Withheld || seen[sc] || (w != nil && !slices.Contains(w, sc)) || !Within(sc, asked) {
				t.Fatalf("Scope(%q within %q) granted %q", asked, within, got)
			}
			seen[sc] = true
		}
	})
}
