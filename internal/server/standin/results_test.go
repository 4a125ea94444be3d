package standin

import (
	"encoding/json"
	"strings"
	"testing"
)

// A cacheable result recorded without a cacheScope (a server of protocol
// 2025-11-25, which has none) goes out with the protocol's default,
// "public", never "" (which a strict 2026-07-28 client refuses); a recorded
// scope goes out as recorded.
func TestCacheScopeOfARecordedResult(t *testing.T) {
	for _, c := range []struct{ method, raw, want string }{
		{"tools/list", `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`, `"cacheScope":"public"`},
		{"prompts/list", `{"prompts":[]}`, `"cacheScope":"public"`},
		{"resources/list", `{"resources":[]}`, `"cacheScope":"public"`},
		{"resources/templates/list", `{"resourceTemplates":[]}`, `"cacheScope":"public"`},
		{"resources/read", `{"contents":[{"uri":"a://b","text":"x"}]}`, `"cacheScope":"public"`},
		{"tools/list", `{"tools":[],"ttlMs":5000,"cacheScope":"private"}`, `"cacheScope":"private"`},
	} {
		res, err := decodeResult(c.method, json.RawMessage(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%s %s: sent %s, want %s in it", c.method, c.raw, b, c.want)
		}
	}
}
