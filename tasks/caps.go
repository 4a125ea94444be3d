package tasks

import (
	"encoding/json"
	"reflect"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestCaps returns what the client declared it can do on this request: the
// per-request _meta capabilities (2026-07-28), else those of the session's
// initialize (older protocol versions), else nil.
func requestCaps(req mcp.Request) *mcp.ClientCapabilities {
	if p := req.GetParams(); !isNil(p) {
		if m := p.GetMeta(); m != nil {
			if v, ok := m[mcp.MetaKeyClientCapabilities]; ok {
				var c mcp.ClientCapabilities
				// Read as the go-sdk reads them ("Extensions" is not
				// "extensions").
				if b, err := json.Marshal(v); err == nil && strictjson.DecodeAsSDK(b, &c) == nil {
					return &c
				}
				return nil
			}
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			return ip.Capabilities
		}
	}
	return nil
}

// usesOldProtocol reports whether the request came on a session that speaks a
// protocol version before 2026-07-28, where the server may still send
// elicitation/create to the client in the middle of a call.
func usesOldProtocol(req *mcp.CallToolRequest) bool {
	if req.Params != nil {
		if _, ok := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion]; ok {
			return false
		}
	}
	if req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion != "" && ip.ProtocolVersion < "2026-07-28"
}

func isNil(p mcp.Params) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Declared reports whether the client of req declared the extension: on the
// request (2026-07-28) or, on an older protocol version, when its session
// was initialized. It is the reading the extension itself decides by, for a
// server that answers the extension's calls without it (mcp-tester serve).
func Declared(req mcp.Request) bool { return declaresTasks(requestCaps(req)) }

// declaresTasks reports whether the capabilities include the extension.
func declaresTasks(c *mcp.ClientCapabilities) bool {
	if c == nil || c.Extensions == nil {
		return false
	}
	_, ok := c.Extensions[ExtensionID]
	return ok
}

// caller is the authenticated user behind a request ("" for none), or an error
// when Options.RequireSubject is set and there is none.
func (x *Extension) caller(req mcp.Request) (string, error) {
	user := x.opts.Subject(req)
	if user == "" && x.opts.RequireSubject {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "this server runs tasks only for an authenticated user; send the request with a bearer token"}
	}
	return user, nil
}
