package session

import (
	"encoding/json"
	"testing"
)

// The cacheScope of a list is kept as sent: missing (nil), empty, or
// another value; of several pages the first that is neither "public" nor
// "private" stands, else the last page's.
func TestListedCacheScopeAsSent(t *testing.T) {
	cases := []struct {
		name  string
		pages []string
		want  string // "" for nil: the member was missing
	}{
		{"public", []string{`{"cacheScope":"public","tools":[]}`}, `"public"`},
		{"missing", []string{`{"tools":[]}`}, ""},
		{"empty", []string{`{"cacheScope":"","tools":[]}`}, `""`},
		{"null", []string{`{"cacheScope":null,"tools":[]}`}, `null`},
		{"an empty page after a right one", []string{`{"cacheScope":"public","nextCursor":"2","tools":[]}`, `{"cacheScope":"","tools":[]}`}, `""`},
		{"a right page after an empty one", []string{`{"cacheScope":"","nextCursor":"2","tools":[]}`, `{"cacheScope":"private","tools":[]}`}, `""`},
		{"the last right page", []string{`{"cacheScope":"public","nextCursor":"2","tools":[]}`, `{"cacheScope":"private","tools":[]}`}, `"private"`},
	}
	for _, c := range cases {
		s := &Session{listed: &listed{}}
		if _, ok := s.ListedCacheScope("tools/list"); ok {
			t.Fatalf("%s: a scope before any answer", c.name)
		}
		for _, p := range c.pages {
			s.listed.page("tools/list", json.RawMessage(p))
		}
		got, ok := s.ListedCacheScope("tools/list")
		if !ok || string(got) != c.want {
			t.Errorf("%s: %s (%v), want %s", c.name, got, ok, c.want)
		}
	}
	if _, ok := (&Session{}).ListedCacheScope("tools/list"); ok {
		t.Error("a session that keeps nothing has a scope")
	}
}
