//lint:file-ignore SA1019 sampling and roots are deprecated as of 2026-07-28 but kept working until at least 2027-07-28; the tester answers them while servers ask.

package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSampleMessages bounds the messages of one sampling request the tester
// looks at.
const maxSampleMessages = 1000

// samplingDeclared reports whether the tester declares sampling: it was
// asked to, a Sampler is set, or the session's answerer can answer model
// requests.
func (s *Session) samplingDeclared() bool {
	return s.opts.DeclareSampling || s.opts.Sampler != nil || answer.CanSample(s.opts.Answerer)
}

// samplerOf returns what answers the model requests of a call answered by
// ans: ans itself when it can, then the session's Sampler.
func (s *Session) samplerOf(ans answer.Answerer) answer.Sampler {
	var chain answer.SamplerChain
	if answer.CanSample(ans) {
		chain = append(chain, ans.(answer.Sampler))
	}
	if s.opts.Sampler != nil {
		chain = append(chain, s.opts.Sampler)
	}
	return chain
}

// deprecated tells, once per session and feature, that the server uses a
// feature deprecated as of 2026-07-28: asked for in an input_required
// result (via), as only a server of that protocol asks. A server of an
// earlier protocol, which asks with a request of its own, uses a feature
// its protocol has not deprecated, and is not told about.
func (s *Session) deprecated(feature, via string) {
	if via == exchange.ViaSamplingRequest || via == exchange.ViaRootsRequest {
		return
	}
	s.mu.Lock()
	if s.noted == nil {
		s.noted = map[string]bool{}
	}
	seen := s.noted[feature]
	s.noted[feature] = true
	s.mu.Unlock()
	if !seen && s.opts.Deprecated != nil {
		s.opts.Deprecated(feature)
	}
}

// sample answers a request for a model reply (sampling/createMessage).
func (s *Session) sample(ctx context.Context, via string, at origin, key string, round int, ans answer.Answerer, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	op := at.op
	label := questionLabel(key, "a model reply (sampling/createMessage)")
	s.deprecated(exchange.AsksSampling, via)
	if !s.samplingDeclared() {
		return nil, &Error{Kind: KindProtocol, Op: op, Err: s.hinted(fmt.Errorf("%s asks for sampling (sampling/createMessage), which the tester did not declare and cannot answer", label), SettingSampling, "")}
	}
	if p == nil {
		return nil, protocolErr(op, "%s is empty", label)
	}
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		return nil, protocolErr(op, "%s offers the model tools, but the tester did not declare sampling with tools", label)
	}
	if len(p.Messages) > maxSampleMessages {
		return nil, protocolErr(op, "%s has %d messages, more than the tester reads (%d)", label, len(p.Messages), maxSampleMessages)
	}
	q := &answer.SampleQuestion{Key: key, Round: round, Via: via, Server: s.server, Params: p}
	began := time.Now()
	if ans == nil {
		ans = s.opts.Answerer
	}
	res, err := s.samplerOf(ans).Sample(ctx, q)
	if errors.Is(err, answer.ErrNoAnswer) {
		return nil, &Error{Kind: KindAnswer, Op: op, Err: s.hinted(fmt.Errorf("%s: no model reply is left to answer it", label), SettingSampleReplies, "")}
	}
	if err != nil {
		return nil, &Error{Kind: KindAnswer, Op: op, Err: err}
	}
	s.log.Add(exchange.Entry{Method: at.method, Name: at.name, Via: via, Key: key, Round: round, Server: s.server,
		Asks: exchange.AsksSampling, Sample: p, Reply: res, Elapsed: int64(time.Since(began))})
	return res, nil
}

// listRoots answers a request for the client's roots (roots/list).
func (s *Session) listRoots(via string, at origin, key string, round int) (*mcp.ListRootsResult, error) {
	op := at.op
	s.deprecated(exchange.AsksRoots, via)
	if s.opts.Roots == nil {
		return nil, &Error{Kind: KindProtocol, Op: op, Err: s.hinted(fmt.Errorf("%s asks for roots (roots/list), which the tester did not declare and cannot answer", questionLabel(key, "the roots (roots/list)")), SettingRoots, "")}
	}
	roots := append([]*mcp.Root{}, s.opts.Roots...)
	s.log.Add(exchange.Entry{Method: at.method, Name: at.name, Via: via, Key: key, Round: round, Server: s.server,
		Asks: exchange.AsksRoots, Roots: roots})
	return &mcp.ListRootsResult{Roots: roots}, nil
}

func questionLabel(key, what string) string {
	if key == "" {
		return "the request for " + what
	}
	return fmt.Sprintf("question %q", key)
}
