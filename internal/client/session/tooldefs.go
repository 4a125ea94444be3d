package session

import (
	"context"
	"fmt"

	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
func (s *Session) knowTools(ctx context.Context, name string) {
	if s.opts.Target.URL == "" || s.ProtocolVersion() < Modern {
		return
	}
	s.toolsOnce.Do(func() {
		_, _, _ = s.ListTools(listedBefore(ctx, name), Pages{All: true})
	})
}

// listedBefore is ctx for the tools/list the session makes itself before
// it calls the tool name.
func listedBefore(ctx context.Context, name string) context.Context {
	return WithPurpose(ctx, fmt.Sprintf("read before tools/call %q", name))
}

// maxSupport bounds the tools whose taskSupport a session keeps.
const maxSupport = 10000

// noteSupport keeps the taskSupport of the tools of one page of a listing
// (protocol 2025-11-25, a server that offers task tool calls).
func (s *Session) noteSupport(tools []*mcp.Tool, support map[string]taskclient.Support) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.support == nil {
		s.support = map[string]taskclient.Support{}
	}
	for _, t := range tools {
		if len(s.support) >= maxSupport {
			return
		}
		s.support[t.Name] = support[t.Name]
	}
}

// asTask reports whether a call of the tool asks for a task of protocol
// 2025-11-25 (params.task): the tester runs tasks (not --no-tasks), the
// server offers task tool calls, and the tool requires a task. A tool the
// server allows to run either way (taskSupport "optional") is called
// plainly, as a client that does not run tasks would. The tools are listed
// once for it, before the first call of a tool not yet listed.
func (s *Session) asTask(ctx context.Context, name string) bool {
	if !s.offer.ToolCalls {
		return false
	}
	return s.requiresTask(ctx, name)
}

// requiresTask reports whether the server listed the tool with
// execution.taskSupport "required" (protocol 2025-11-25, a session that
// runs tasks), listing the tools once if it was not listed.
func (s *Session) requiresTask(ctx context.Context, name string) bool {
	if !s.opts.Tasks || !taskclient.Legacy(s.cs) {
		return false
	}
	s.mu.Lock()
	v, known := s.support[name]
	s.mu.Unlock()
	if !known {
		s.supportOnce.Do(func() {
			_, _, _ = s.ListTools(listedBefore(ctx, name), Pages{All: true})
		})
		s.mu.Lock()
		v = s.support[name]
		s.mu.Unlock()
	}
	return v == taskclient.SupportRequired
}

// TaskRequired reports whether the server listed the tool as one that runs
// only as a task of protocol 2025-11-25 (execution.taskSupport "required"),
// and, if so, why "" or why not this session runs it as one: a call of it
// that is not a task is refused by the server, and says nothing of the
// tool. Known only to a session that runs tasks (Options.Tasks).
func (s *Session) TaskRequired(ctx context.Context, name string) (required bool, whyNot string) {
	if !s.requiresTask(ctx, name) {
		return false, ""
	}
	if !s.offer.ToolCalls {
		return true, "the server does not offer task tool calls (capabilities.tasks.requests.tools.call)"
	}
	return true, ""
}

// taskSupport is asTask for a tool whose support is known already.
func (s *Session) taskSupport(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offer.ToolCalls && s.support[name] == taskclient.SupportRequired
}
