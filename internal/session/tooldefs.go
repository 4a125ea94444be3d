package session

import "context"

// Modern is the first protocol version whose requests carry their own
// metadata and, over Streamable HTTP, the standard and Mcp-Param-* headers.
const Modern = "2026-07-28"

// knowTools lists the server's tools once per session before the first
// tools/call over Streamable HTTP on protocol 2026-07-28 or newer. A tool
// may ask for some of its arguments in Mcp-Param-* headers too (x-mcp-header
// in its input schema), and the go-sdk adds those headers only for tools
// it has listed in the session; without them such a server refuses the
// call (HTTP 400). The listing is bounded like any other; if it fails the
// call goes ahead, and the server says what it misses.
func (s *Session) knowTools(ctx context.Context) {
	if s.opts.Target.URL == "" || s.ProtocolVersion() < Modern {
		return
	}
	s.toolsOnce.Do(func() {
		_, _, _ = s.ListTools(ctx, Pages{All: true})
	})
}
