//lint:file-ignore SA1019 logging is deprecated as of 2026-07-28 but still works; the tester tests it.

package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxPages bounds a listing that follows every page: a server whose
// cursors never end is stopped there.
const MaxPages = 1000

// Pages says which pages of a list to fetch.
type Pages struct {
	// Cursor is the page to start at; "" is the first.
	Cursor string
	// All follows every page after it, at most MaxPages; otherwise one
	// page is fetched.
	All bool
	// Page, when set, is handed each page's items as they come (a
	// []*mcp.Tool, []*mcp.Prompt, …) and their number; an error it returns
	// stops the listing and is the listing's error. It is how a caller
	// bounds what a server can fill.
	Page func(items any, n int) error
}

// ListTools lists the server's tools. It returns the cursor of the next
// page, "" at the end.
func (s *Session) ListTools(ctx context.Context, p Pages) ([]*mcp.Tool, string, error) {
	return list(ctx, s, "tools/list", p, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		if s.opts.Tasks && taskclient.Legacy(s.cs) {
			// Protocol 2025-11-25: keep which tools run as tasks.
			r, support, err := taskclient.ListTools(ctx, s.cs, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			s.noteSupport(r.Tools, support)
			return r.Tools, r.NextCursor, nil
		}
		r, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// ListPrompts lists the server's prompts, as ListTools does.
func (s *Session) ListPrompts(ctx context.Context, p Pages) ([]*mcp.Prompt, string, error) {
	return list(ctx, s, "prompts/list", p, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := s.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// ListResources lists the server's resources, as ListTools does.
func (s *Session) ListResources(ctx context.Context, p Pages) ([]*mcp.Resource, string, error) {
	return list(ctx, s, "resources/list", p, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates lists the server's resource templates, as
// ListTools does.
func (s *Session) ListResourceTemplates(ctx context.Context, p Pages) ([]*mcp.ResourceTemplate, string, error) {
	return list(ctx, s, "resources/templates/list", p, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := s.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// list fetches the pages p names with fetch, each request bounded by the
// session's time limit, and returns the items and the next page's cursor.
func list[T any](ctx context.Context, s *Session, op string, p Pages, fetch func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, string, error) {
	defer s.send(ctx, op)()
	var all []T
	cursor := p.Cursor
	seen := map[string]bool{}
	for range MaxPages {
		rctx, clock := s.startClock(ctx)
		var items []T
		var next string
		err := s.refuseRepeats(op, func() (err error) {
			items, next, err = fetch(rctx, cursor)
			return s.wrap(rctx, op, err)
		})
		clock.stop()
		if err != nil {
			return nil, "", err
		}
		if p.Page != nil {
			if err := p.Page(items, len(items)); err != nil {
				return nil, "", err
			}
		}
		all = append(all, items...)
		if !p.All || next == "" {
			return all, next, nil
		}
		if seen[next] {
			return nil, "", protocolErr(op, "the server sent cursor %q twice; stopped", next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, "", TooLarge(op, fmt.Sprintf("more than %d pages", MaxPages))
}

// InitializeResult is what the server said about itself when the session
// began: its name, version, capabilities and instructions.
func (s *Session) InitializeResult() *mcp.InitializeResult { return s.cs.InitializeResult() }

// ServerCapabilities are the capabilities the server declared, never nil.
func (s *Session) ServerCapabilities() *mcp.ServerCapabilities {
	if r := s.cs.InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	return &mcp.ServerCapabilities{}
}

// Complete asks for the completions of an argument (completion/complete).
// A server that declared no completions is not asked.
func (s *Session) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	const op = "completion/complete"
	if s.ServerCapabilities().Completions == nil {
		return nil, &Error{Kind: KindServer, Op: op, Err: errors.New("the server does not offer completions (its capabilities have no completions)")}
	}
	return once(ctx, s, op, func(ctx context.Context) (*mcp.CompleteResult, error) {
		return s.cs.Complete(ctx, params)
	})
}

// Subscribe subscribes to the updates of the resource at uri, which
// arrive as notifications/resources/updated (hear them with
// Options.Middleware). It returns once the request is on its way; the
// channel gets how the request ended: with protocol 2026-07-28 the
// subscription is a subscriptions/listen stream that lasts until
// Unsubscribe, Close or the end of ctx; with older versions
// resources/subscribe answers at once. A server that declared no
// subscriptions is not asked.
func (s *Session) Subscribe(ctx context.Context, uri string) (<-chan error, error) {
	op := "resources/subscribe " + strconv.Quote(uri)
	if caps := s.ServerCapabilities(); caps.Resources == nil || !caps.Resources.Subscribe {
		return nil, &Error{Kind: KindServer, Op: op, Err: errors.New("the server does not offer subscriptions (its capabilities have no resources.subscribe)")}
	}
	done := make(chan error, 1)
	go func() {
		defer s.send(ctx, op)()
		done <- s.wrap(ctx, op, s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	}()
	return done, nil
}

// Unsubscribe ends a subscription Subscribe began.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	op := "resources/unsubscribe " + strconv.Quote(uri)
	defer s.send(ctx, op)()
	return s.wrap(ctx, op, s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}

// SetLogLevel sets the level of the log messages the server sends
// (logging/setLevel; deprecated as of protocol 2026-07-28, where a
// stateless server takes the level in each request's _meta instead). The
// messages arrive as notifications/message.
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	defer s.send(ctx, "logging/setLevel")()
	ctx, clock := s.startClock(ctx)
	defer clock.stop()
	err := s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)})
	if err != nil && s.opts.Target.URL != "" {
		if v := s.ProtocolVersion(); v >= "2026-07-28" {
			err = s.hinted(fmt.Errorf("%w (with protocol %s a stateless server takes the level in each request's _meta %q; a session of protocol 2025-11-25 sets it for the session)", err, v, "io.modelcontextprotocol/logLevel"), SettingProtocol, "2025-11-25")
		}
	}
	return s.wrap(ctx, "logging/setLevel", err)
}

// CallToolOnce sends one tools/call as params give it and returns the
// server's answer as it is: its questions are not answered and a task it
// starts is not waited for. It is for a client that drives the rounds
// itself, such as the audit, which sends what a well-behaved client would
// not (tampered state, answers nobody asked for).
func (s *Session) CallToolOnce(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return once(ctx, s, fmt.Sprintf("tools/call %q", params.Name), func(ctx context.Context) (*mcp.CallToolResult, error) {
		s.knowTools(ctx, params.Name)
		if s.asTask(ctx, params.Name) {
			// A task of protocol 2025-11-25: its questions come as
			// elicitation/create requests while tasks/result waits.
			return s.taskClient(params.Name, nil, nil).CallTool(ctx, params)
		}
		res, err := s.cs.CallTool(ctx, params)
		if err == nil && res.NeedsInput() && len(res.InputRequests) > MaxRoundQuestions {
			return nil, tooManyQuestions(fmt.Sprintf("tools/call %q", params.Name), len(res.InputRequests), "inputRequests")
		}
		return res, err
	})
}

// GetPromptOnce sends one prompts/get, as CallToolOnce does.
func (s *Session) GetPromptOnce(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return once(ctx, s, fmt.Sprintf("prompts/get %q", params.Name), func(ctx context.Context) (*mcp.GetPromptResult, error) {
		res, err := s.cs.GetPrompt(ctx, params)
		if err == nil && res.NeedsInput() && len(res.InputRequests) > MaxRoundQuestions {
			return nil, tooManyQuestions(fmt.Sprintf("prompts/get %q", params.Name), len(res.InputRequests), "inputRequests")
		}
		return res, err
	})
}

// ReadResourceOnce sends one resources/read, as CallToolOnce does.
func (s *Session) ReadResourceOnce(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return once(ctx, s, fmt.Sprintf("resources/read %q", params.URI), func(ctx context.Context) (*mcp.ReadResourceResult, error) {
		res, err := s.cs.ReadResource(ctx, params)
		if err == nil && res.NeedsInput() && len(res.InputRequests) > MaxRoundQuestions {
			return nil, tooManyQuestions(fmt.Sprintf("resources/read %q", params.URI), len(res.InputRequests), "inputRequests")
		}
		return res, err
	})
}

// once sends one request with send within the session's time limit and
// returns its answer, refused when it has a key twice in one object.
func once[R any](ctx context.Context, s *Session, op string, send func(context.Context) (R, error)) (R, error) {
	defer s.send(ctx, op)()
	ctx, clock := s.startClock(ctx)
	defer clock.stop()
	var res R
	err := s.refuseRepeats(op, func() (err error) {
		res, err = send(ctx)
		return s.wrap(ctx, op, err)
	})
	return res, err
}

// refuseRepeats sends the request(s) of send and fails them when an answer
// had a key twice in one object (which the go-sdk reads as its last value):
// every answer a command reads is refused alike. A request that failed
// keeps its own error.
func (s *Session) refuseRepeats(op string, send func() error) error {
	s.results.takeRepeated()
	err := send()
	if dup := s.results.takeRepeated(); dup != nil && err == nil {
		return protocolErr(op, "%w", dup)
	}
	if twice := s.results.takeTwice(); twice != nil {
		return protocolErr(op, "%w", twice)
	}
	return err
}
