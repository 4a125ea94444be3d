package standin

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A list a server answers may depend on what its client declared (the
// reference server lists its sampling tool only to a client that declared
// sampling): the stand-in answers a list with the recorded one whose
// client declared the capabilities nearest its client's (capsNearest).

// capsOf is what a client declared, as the stand-in compares it: the
// capabilities it names ("sampling", "roots", "elicitation.form",
// "elicitation.url", "extensions.ID", …), sorted. raw is the
// capabilities object; nil when it cannot be read.
func capsOf(raw json.RawMessage) []string {
	var top map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &top) != nil {
		return nil
	}
	out := []string{}
	for name, v := range top {
		var sub map[string]json.RawMessage
		if v == nil || string(v) == "null" || name == "experimental" {
			continue
		}
		_ = json.Unmarshal(v, &sub)
		switch name {
		case "elicitation":
			// {} is a form question's capability, before url came.
			_, form := sub["form"]
			_, url := sub["url"]
			if form || !url {
				out = append(out, "elicitation.form")
			}
			if url {
				out = append(out, "elicitation.url")
			}
		case "extensions":
			for id := range sub {
				out = append(out, "extensions."+id)
			}
		default:
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// capsDistance is how many capabilities one of a and b declares and the
// other does not.
func capsDistance(a, b []string) int {
	d := 0
	for _, c := range a {
		if !slices.Contains(b, c) {
			d++
		}
	}
	for _, c := range b {
		if !slices.Contains(a, c) {
			d++
		}
	}
	return d
}

// capsNearest are the exchanges of recorded whose client declared the
// capabilities nearest caps (all of them at the least distance, in order),
// and a key that names that choice, for the turn among them.
func capsNearest(recorded []*Exchange, caps []string) ([]*Exchange, string) {
	// An answered list is served before one the recording holds no
	// answer to (take), whatever its client declared.
	answered := slices.ContainsFunc(recorded, func(x *Exchange) bool { return x.Ended })
	best, at := -1, []*Exchange(nil)
	for _, x := range recorded {
		if answered && !x.Ended {
			continue
		}
		d := capsDistance(x.clientCaps, caps)
		switch {
		case best < 0 || d < best:
			best, at = d, []*Exchange{x}
		case d == best:
			at = append(at, x)
		}
	}
	return at, strings.Join(caps, ",")
}

// requestClientCaps is what the client of req declared: on the request
// (2026-07-28, its _meta), else at its session's initialize; false when
// neither says.
func requestClientCaps(req mcp.Request) ([]string, bool) {
	if p := req.GetParams(); !isNilParams(p) {
		if m := p.GetMeta(); m != nil {
			if v, ok := m[mcp.MetaKeyClientCapabilities]; ok {
				b, err := json.Marshal(v)
				return capsOf(b), err == nil
			}
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
			b, err := json.Marshal(ip.Capabilities)
			return capsOf(b), err == nil
		}
	}
	return nil, false
}

func isNilParams(p mcp.Params) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// recordedClientCaps is what the recorded client of a request declared:
// on the request (its _meta, 2026-07-28), else at the initialize of its
// session (b.caps).
func (b *builder) recordedClientCaps(w recording.Message, p recording.Params) []string {
	if raw, ok := p.Meta[mcp.MetaKeyClientCapabilities]; ok {
		return capsOf(raw)
	}
	return b.caps[w.Session]
}

// initializeCaps is what an initialize request's client declared.
func initializeCaps(params json.RawMessage) []string {
	var p struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(params, &p)
	return capsOf(p.Capabilities)
}
