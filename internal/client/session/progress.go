package session

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is one progress notification a server sent for a tool call.
type Progress struct {
	Tool     string  // the tool called
	Progress float64 // how far it is
	Total    float64 // of how much; zero when the server did not say
	Message  string  // the server's words, as sent
}

// String renders p as "TOOL: PROGRESS/TOTAL MESSAGE" (without TOTAL when
// there is none), the server's words unescaped.
func (p Progress) String() string {
	s := fmt.Sprintf("%s: %g", p.Tool, p.Progress)
	if p.Total > 0 {
		s += fmt.Sprintf("/%g", p.Total)
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// progressToken asks for progress on a tool call when Options.OnProgress
// is set: a token of the session's own, put in params and remembered for
// the call's tool. The last recentTokens tokens stay known, so that a
// notification handled just after its call returned is still shown.
func (s *Session) progressToken(params *mcp.CallToolParams, tool string) {
	if s.opts.OnProgress == nil {
		return
	}
	s.mu.Lock()
	s.progressSeq++
	token := fmt.Sprintf("mcp-tester-%d", s.progressSeq)
	if s.progress == nil {
		s.progress = map[string]string{}
	}
	s.progress[token] = tool
	delete(s.progress, fmt.Sprintf("mcp-tester-%d", s.progressSeq-recentTokens))
	s.mu.Unlock()
	params.SetProgressToken(token)
}

// recentTokens bounds the progress tokens a session remembers.
const recentTokens = 16

// onProgress hands a progress notification to Options.OnProgress when its
// token is one the session gave out lately; others are dropped.
func (s *Session) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	s.mu.Lock()
	tool, ok := s.progress[token]
	s.mu.Unlock()
	if !ok {
		return
	}
	s.opts.OnProgress(Progress{Tool: tool, Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
}
