package standin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a request's params hold that says nothing about which request it
// is: ignored when requests are matched. _meta carries the client's
// capabilities and protocol (2026-07-28) and progress tokens;
// requestState and inputResponses belong to a round, not to the request.
var ignoredParams = []string{"_meta", "requestState", "inputResponses"}

// paramsOf returns a new value of the go-sdk's type for a method's params,
// or nil for a method whose params are compared as they are.
//
// Both sides of a match go through the same type: the recorded params are
// decoded into it and written again, as the params a request arrives with
// are, so that a member the go-sdk does not read counts on neither side.
func paramsOf(method string) mcp.Params {
	switch method {
	case "tools/call":
		return &mcp.CallToolParamsRaw{}
	case "prompts/get":
		return &mcp.GetPromptParams{}
	case "resources/read":
		return &mcp.ReadResourceParams{}
	case "tools/list":
		return &mcp.ListToolsParams{}
	case "prompts/list":
		return &mcp.ListPromptsParams{}
	case "resources/list":
		return &mcp.ListResourcesParams{}
	case "resources/templates/list":
		return &mcp.ListResourceTemplatesParams{}
	case "completion/complete":
		return &mcp.CompleteParams{}
	case "logging/setLevel":
		//lint:ignore SA1019 logging is deprecated but clients still set the level
		return &mcp.SetLoggingLevelParams{}
	case "resources/subscribe":
		return &mcp.SubscribeParams{}
	case "resources/unsubscribe":
		return &mcp.UnsubscribeParams{}
	}
	return nil
}

// errNoCanonicalForm is params that cannot be matched: not a JSON object,
// or an object whose keys repeat or differ only in letter case (decoders
// disagree on which one counts, so no one form stands for it).
var errNoCanonicalForm = errors.New("no canonical form")

// matchKey returns the canonical form of a request's params for matching:
// the params as the go-sdk reads them for the method, without the members
// of ignoredParams, keys sorted, numbers by their exact value (1, 1.0 and
// 1e0 alike), absent or null "arguments" as {}. raw is the params as
// recorded or received; empty and null mean none.
func matchKey(method string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := strictjson.CheckKeys(raw); err != nil {
		return "", fmt.Errorf("%w: %v", errNoCanonicalForm, err)
	}
	raw, err := readAsSDK(method, raw)
	if err != nil {
		return "", err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return "", fmt.Errorf("%w: params are not a JSON object", errNoCanonicalForm)
	}
	keepMatched(method, members)
	b, err := json.Marshal(members)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoCanonicalForm, err)
	}
	c, err := reqstate.CanonicalJSON(b)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoCanonicalForm, err)
	}
	return string(c), nil
}

// readAsSDK is params as the go-sdk reads them for method: decoded into
// its params type and written again (see paramsOf); raw itself for a
// method whose params are compared as they are.
func readAsSDK(method string, raw json.RawMessage) (json.RawMessage, error) {
	p := paramsOf(method)
	if p == nil {
		return raw, nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("params of %s: %w", method, err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("params of %s: %w", method, err)
	}
	return b, nil
}

// matchedParams is what a request's params hold that is matched, as it
// came (the members of ignoredParams left out), for a report; nil when
// they are no JSON object.
func matchedParams(req mcp.Request) json.RawMessage {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil || members == nil {
		return nil
	}
	for _, k := range ignoredParams {
		delete(members, k)
	}
	if b, err = json.Marshal(members); err != nil {
		return nil
	}
	return b
}

// keepMatched leaves in a request's params the members that are matched:
// not those of ignoredParams; "arguments" absent or null as {} on a call
// that takes arguments, and left out elsewhere.
func keepMatched(method string, members map[string]json.RawMessage) {
	for _, k := range ignoredParams {
		delete(members, k)
	}
	if args, ok := members["arguments"]; ok && (len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null") {
		delete(members, "arguments")
	}
	if method == "tools/call" || method == "prompts/get" {
		if _, ok := members["arguments"]; !ok {
			members["arguments"] = json.RawMessage("{}")
		}
	}
}

// canonical returns the canonical form of one JSON value (see
// reqstate.CanonicalJSON), or the error that it has none.
func canonical(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	c, err := reqstate.CanonicalJSON(b)
	if err != nil {
		return "", err
	}
	return string(c), nil
}

// leaves flattens a canonical JSON value into its leaves, each written
// "path=value", for the distance between two params. It stops at limit
// leaves: params are bounded by the recording's limits, but the nearest
// of thousands of recorded requests is sought for each unmatched one.
func leaves(canon string, limit int) map[string]bool {
	var v any
	dec := json.NewDecoder(strings.NewReader(canon))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return map[string]bool{canon: true}
	}
	out := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if len(out) >= limit {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				out[path+"={}"] = true
			}
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(path+"."+k, t[k])
			}
		case []any:
			if len(t) == 0 {
				out[path+"=[]"] = true
			}
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			b, _ := json.Marshal(t)
			out[path+"="+string(b)] = true
		}
	}
	walk("", v)
	return out
}

// maxLeaves bounds the leaves compared per params.
const maxLeaves = 256

// hiddenJSON is a value the proxy hid as a credential, as it stands in a
// match key.
var hiddenJSON = `"` + credential.Hidden + `"`

// hidesArguments reports whether a match key holds an argument the
// recording hides (credential.Hidden): one matched by pattern
// (matchesHidden), not by its key alone.
func hidesArguments(key string) bool {
	return strings.Contains(key, hiddenJSON)
}

// matchesHidden reports whether the params of a request (its match key
// got) are those of a recorded request whose arguments the proxy hid in
// part (recorded): alike but where the recording shows credential.Hidden
// under "arguments", which any value of that argument matches.
func matchesHidden(recorded, got string) bool {
	var r, g map[string]any
	if decodeNumbers(recorded, &r) != nil || decodeNumbers(got, &g) != nil || len(r) != len(g) {
		return false
	}
	for k, rv := range r {
		gv, ok := g[k]
		if !ok || !sameBut(rv, gv, k == "arguments") {
			return false
		}
	}
	return true
}

// sameMembersBut reports whether two JSON objects have the same members,
// alike as sameBut says.
func sameMembersBut(want, got map[string]any, hidden bool) bool {
	if len(got) != len(want) {
		return false
	}
	for k, wv := range want {
		gv, ok := got[k]
		if !ok || !sameBut(wv, gv, hidden) {
			return false
		}
	}
	return true
}

// sameItemsBut reports whether two JSON arrays have the same items in the
// same order, alike as sameBut says.
func sameItemsBut(want, got []any, hidden bool) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if !sameBut(want[i], got[i], hidden) {
			return false
		}
	}
	return true
}

// sameBut reports whether two JSON values are alike, a hidden value of
// want matching any value when hidden counts.
func sameBut(want, got any, hidden bool) bool {
	switch w := want.(type) {
	case string:
		if hidden && w == credential.Hidden {
			return true
		}
		g, ok := got.(string)
		return ok && g == w
	case map[string]any:
		g, ok := got.(map[string]any)
		return ok && sameMembersBut(w, g, hidden)
	case []any:
		g, ok := got.([]any)
		return ok && sameItemsBut(w, g, hidden)
	}
	return want == got // numbers (json.Number, canonical), booleans, null
}

func decodeNumbers(canon string, v any) error {
	dec := json.NewDecoder(strings.NewReader(canon))
	dec.UseNumber()
	return dec.Decode(v)
}
