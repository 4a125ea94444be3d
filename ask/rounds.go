//lint:file-ignore SA1019 sampling and roots are deprecated but still asked of older clients

package ask

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxRounds bounds the rounds of questions [EveryRound] asks an older
// client in one request, as a client bounds the rounds it answers.
const MaxRounds = 10

// modern is the first protocol version whose clients read input_required
// results themselves.
const modern = "2026-07-28"

// EveryRound makes s ask a client of protocol 2025-11-25 or older every
// round of questions a handler asks, not only the first.
//
// Such a client cannot read an input_required result. The go-sdk asks it
// the questions of a handler's first input_required result as server
// requests (elicitation/create, sampling, roots) and calls the handler once
// more with the answers; a handler that then asks again would leave the
// client with its second round's questions in a result it cannot read (an
// empty success, to most clients). With EveryRound each further round is
// asked the same way and the handler called again with its answers and
// requestState, for at most [MaxRounds] further rounds; a handler that
// asks more ends the request with an error that says so. Requests of
// 2026-07-28 clients pass untouched. (The go-sdk v1.8.0 refuses a
// resources/read result without contents for an older client before any
// middleware sees it: a resource that asks reaches 2026-07-28 clients only.)
//
// Call it once per server, after mcp.NewServer.
func EveryRound(s *mcp.Server) {
	s.AddReceivingMiddleware(everyRoundMiddleware)
}

func everyRoundMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || !older(ss) {
			return next(ctx, method, req)
		}
		// The go-sdk's own translation inside next asks one round and
		// calls the handler once more: each call of next is at least one
		// round.
		res, err := next(ctx, method, req)
		for round := 1; err == nil; round++ {
			qs, state, asks := questions(res)
			if !asks {
				return res, nil
			}
			if len(qs) == 0 {
				return nil, errors.New("the server is busy, retry later")
			}
			if round > MaxRounds {
				return nil, fmt.Errorf("%s: the server asked more than %d rounds of questions", method, MaxRounds)
			}
			answers, aerr := askAll(ctx, ss, qs)
			if aerr != nil {
				return nil, aerr
			}
			if req, err = again(req, answers, state); err != nil {
				return nil, err
			}
			res, err = next(ctx, method, req)
		}
		return res, err
	}
}

// older reports whether the session's client speaks a protocol older than
// 2026-07-28 (the go-sdk's own test).
func older(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < modern
}

// questions returns the input requests and requestState of a result that
// asks; asks is false for a result that does not.
func questions(res mcp.Result) (qs mcp.InputRequestMap, state string, asks bool) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests, r.RequestState, r != nil && r.InputRequests != nil
	case *mcp.GetPromptResult:
		return r.InputRequests, r.RequestState, r != nil && r.InputRequests != nil
	case *mcp.ReadResourceResult:
		return r.InputRequests, r.RequestState, r != nil && r.InputRequests != nil
	}
	return nil, "", false
}

// askAll asks the client every question of one round as server requests,
// at once, and returns the answers by key.
func askAll(ctx context.Context, ss *mcp.ServerSession, qs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answered struct {
		key string
		res mcp.InputResponse
		err error
	}
	ch := make(chan answered, len(qs))
	for key, q := range qs {
		go func() {
			res, err := askOne(ctx, ss, q)
			ch <- answered{key, res, err}
		}()
	}
	out := make(mcp.InputResponseMap, len(qs))
	for range qs {
		a := <-ch
		if a.err != nil {
			return nil, fmt.Errorf("asking %q: %w", a.key, a.err)
		}
		out[a.key] = a.res
	}
	return out, nil
}

func askOne(ctx context.Context, ss *mcp.ServerSession, q mcp.InputRequest) (mcp.InputResponse, error) {
	switch p := q.(type) {
	case *mcp.ElicitParams:
		return ss.Elicit(ctx, p)
	case *mcp.CreateMessageWithToolsParams:
		return ss.CreateMessageWithTools(ctx, p)
	case *mcp.CreateMessageParams:
		return ss.CreateMessage(ctx, p)
	case *mcp.ListRootsParams:
		return ss.ListRoots(ctx, p)
	}
	return nil, fmt.Errorf("a question of type %T cannot be asked", q)
}

// again returns the request for the next round: a copy of req's params
// with the answers and the state to echo.
func again(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.CallToolRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	case *mcp.GetPromptRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.GetPromptRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	case *mcp.ReadResourceRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.ReadResourceRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	}
	return nil, fmt.Errorf("a request of type %T cannot be asked again", req)
}
