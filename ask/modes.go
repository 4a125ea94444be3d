//lint:file-ignore SA1019 sampling and roots are deprecated but still part of the protocol; clients may declare them.

package ask

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Request is a server-side request. *mcp.CallToolRequest,
// *mcp.GetPromptRequest and *mcp.ReadResourceRequest (every
// *mcp.ServerRequest) satisfy it.
type Request interface {
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}

// Mode is a set of elicitation modes.
type Mode uint8

const (
	// Form: the client shows a form built from a requested schema.
	Form Mode = 1 << iota
	// URL: the client offers to open a link; the input happens out of band.
	URL
	// None: the client may not be asked anything.
	None Mode = 0
)

// Has reports whether m includes every mode of x.
func (m Mode) Has(x Mode) bool { return m&x == x && x != None }

func (m Mode) String() string {
	var parts []string
	if m&Form != 0 {
		parts = append(parts, "form")
	}
	if m&URL != 0 {
		parts = append(parts, "url")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// urlModeSince is the first protocol version with URL-mode elicitation.
const urlModeSince = "2025-11-25"

// Modes reports how the client that sent req may be asked. A client without
// the elicitation capability may not be asked at all; an empty elicitation
// capability means forms only; URL mode needs an explicit "url" and a
// protocol version of 2025-11-25 or later.
func Modes(req Request) Mode {
	if req == nil {
		return None
	}
	e, read := declaredElicitation(req)
	if !read {
		caps := req.ClientCapabilities()
		if caps == nil {
			return None
		}
		e = caps.Elicitation
	}
	if e == nil {
		return None
	}
	var m Mode
	if e.Form != nil || e.URL == nil {
		m |= Form
	}
	if e.URL != nil {
		if v := req.ProtocolVersion(); v == "" || v >= urlModeSince {
			m |= URL
		}
	}
	return m
}

// Permits reports whether the client that sent req declared what it needs to
// answer q: the elicitation mode of an *mcp.ElicitParams (no mode means
// form), sampling (with tools, if the request offers tools) for
// *mcp.CreateMessageParams and *mcp.CreateMessageWithToolsParams, and roots
// for *mcp.ListRootsParams. Anything else is not permitted.
func Permits(req Request, q mcp.InputRequest) bool {
	if req == nil {
		return false
	}
	switch q := q.(type) {
	case *mcp.ElicitParams:
		return q != nil && permitsElicitation(req, q.Mode)
	case *mcp.CreateMessageParams:
		caps := req.ClientCapabilities()
		return q != nil && caps != nil && caps.Sampling != nil
	case *mcp.CreateMessageWithToolsParams:
		return q != nil && permitsToolSampling(req.ClientCapabilities(), q)
	case *mcp.ListRootsParams:
		caps := req.ClientCapabilities()
		return q != nil && caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged)
	}
	return false
}

// permitsElicitation reports whether the client of req may be asked a
// question in mode ("" is form).
func permitsElicitation(req Request, mode string) bool {
	switch mode {
	case "", "form":
		return Modes(req).Has(Form)
	case "url":
		return Modes(req).Has(URL)
	}
	return false
}

// permitsToolSampling reports whether a client with caps may be asked q:
// sampling, and sampling with tools if q offers tools.
func permitsToolSampling(caps *mcp.ClientCapabilities, q *mcp.CreateMessageWithToolsParams) bool {
	if caps == nil || caps.Sampling == nil {
		return false
	}
	return len(q.Tools) == 0 && q.ToolChoice == nil || caps.Sampling.Tools != nil
}

// Filter returns the questions of qs that the client of req may be asked
// (see [Permits]), or nil if there are none.
func Filter(req Request, qs mcp.InputRequestMap) mcp.InputRequestMap {
	var out mcp.InputRequestMap
	for k, q := range qs {
		if Permits(req, q) {
			if out == nil {
				out = make(mcp.InputRequestMap)
			}
			out[k] = q
		}
	}
	return out
}

// MissingCapability returns the JSON-RPC error (-32021, the go-sdk's
// mcp.CodeMissingRequiredClientCapabilities, with its
// mcp.MissingRequiredClientCapabilityData) for a request that cannot be
// served without the given client capabilities; the message names them. On
// HTTP the go-sdk sends it with status 400. Return it from a handler when
// there is no way to do the work without asking (otherwise, prefer a normal
// result that says what is missing). The tasks extension uses it too.
func MissingCapability(required *mcp.ClientCapabilities) error {
	msg := "this request needs a client capability that the request did not declare"
	if names := capabilityNames(required); names != "" {
		msg = "this request needs the client capability " + names + "; declare it in the request's _meta clientCapabilities"
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: msg,
		Data:    capabilitiesJSON(required),
	}
}

// capabilityNames lists the capabilities of caps as paths ("elicitation.url",
// "extensions[io.modelcontextprotocol/tasks]"), or "".
func capabilityNames(caps *mcp.ClientCapabilities) string {
	if caps == nil {
		return ""
	}
	var names []string
	if e := caps.Elicitation; e != nil {
		switch {
		case e.URL != nil && e.Form != nil:
			names = append(names, "elicitation.form", "elicitation.url")
		case e.URL != nil:
			names = append(names, "elicitation.url")
		default:
			names = append(names, "elicitation")
		}
	}
	if caps.Sampling != nil {
		names = append(names, "sampling")
	}
	if caps.RootsV2 != nil {
		names = append(names, "roots")
	}
	for _, id := range slices.Sorted(maps.Keys(caps.Extensions)) {
		names = append(names, "extensions["+id+"]")
	}
	return strings.Join(names, ", ")
}

// capabilitiesJSON encodes caps as the protocol does. The go-sdk's own
// encoding of ClientCapabilities always writes "roots" (a struct field kept
// for compatibility); here roots appears only when RootsV2 is set.
func capabilitiesJSON(caps *mcp.ClientCapabilities) json.RawMessage {
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	b, err := json.Marshal(caps)
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil
	}
	delete(m, "roots")
	if caps.RootsV2 != nil {
		m["roots"] = caps.RootsV2
	}
	b, err = json.Marshal(map[string]any{"requiredCapabilities": m})
	if err != nil {
		return nil
	}
	return b
}

// modernSince is the first protocol version whose requests carry the
// client's capabilities in their _meta.
const modernSince = "2026-07-28"

// declaredElicitation reads the elicitation capability from the _meta of a
// request of protocol 2026-07-28 or later as the go-sdk decoded it (a map),
// without decoding the capabilities a second time as
// ClientCapabilities does (a JSON round trip of the map on every call).
// The go-sdk refused such a request before its handler ran if its
// capabilities did not decode, so the map holds what ClientCapabilities
// would return. read is false for anything else (an older request, a value
// of another type), which is then asked of req.
func declaredElicitation(req Request) (e *mcp.ElicitationCapabilities, read bool) {
	meta, ok := paramsMeta(req)
	if !ok {
		return nil, false
	}
	if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v < modernSince {
		return nil, false
	}
	caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !ok {
		return nil, false
	}
	switch el := caps["elicitation"].(type) {
	case nil:
		return nil, true
	case map[string]any:
		return elicitationModes(el)
	}
	return nil, false
}

// paramsMeta returns the _meta of req's params, if it has params.
func paramsMeta(req Request) (map[string]any, bool) {
	r, ok := req.(interface{ GetParams() mcp.Params })
	if !ok {
		return nil, false
	}
	p := r.GetParams()
	if p == nil {
		return nil, false
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, false
	}
	return p.GetMeta(), true
}

// elicitationModes reads a decoded elicitation capability as the go-sdk
// decodes it: each mode an object or null (no mode); read is false for a
// mode of another type.
func elicitationModes(el map[string]any) (e *mcp.ElicitationCapabilities, read bool) {
	e = &mcp.ElicitationCapabilities{}
	for key, v := range el {
		if v == nil {
			continue // null: no mode, as decoded
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false
		}
		switch key {
		case "form":
			e.Form = &mcp.FormElicitationCapabilities{}
		case "url":
			e.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	return e, true
}
