//lint:file-ignore SA1019 sampling and roots are deprecated but still part of the protocol; clients may declare them.

package ask

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Action is the user's response to a question.
type Action string

// The three actions of an elicitation result.
const (
	Accept  Action = "accept"
	Decline Action = "decline"
	Cancel  Action = "cancel"
)

// An Answer is a checked elicitation result.
type Answer struct {
	// Action is Accept, Decline or Cancel.
	Action Action
	// Content is the submitted form data (nil unless accepted in form mode).
	Content map[string]any
}

// Lookup returns the answer to the question with the given key. It reports
// false, so that the handler asks again, when responses has no such key,
// holds nil or something other than an elicitation result under it, or the
// result's action is not one of accept, decline and cancel. Content is
// dropped from an answer that is not an accept.
func Lookup(responses mcp.InputResponseMap, key string) (Answer, bool) {
	r, _ := responses[key].(*mcp.ElicitResult)
	return Read(r)
}

// Read checks an elicitation result, such as the one a task's Ask returns,
// as [Lookup] does: it reports false for nil or an unknown action, and drops
// the content of an answer that is not an accept.
func Read(r *mcp.ElicitResult) (Answer, bool) {
	if r == nil {
		return Answer{}, false
	}
	switch a := Action(r.Action); a {
	case Accept:
		return Answer{Action: a, Content: r.Content}, true
	case Decline, Cancel:
		return Answer{Action: a}, true
	}
	return Answer{}, false
}

// Accepted reports whether the user accepted (submitted the form, or agreed
// to open the link; in URL mode that does not mean the work out of band is
// done).
func (a Answer) Accepted() bool { return a.Action == Accept }

// Text returns a string field of the content.
func (a Answer) Text(field string) (string, bool) {
	s, ok := a.Content[field].(string)
	return s, ok
}

// Bool returns a boolean field of the content.
func (a Answer) Bool(field string) (bool, bool) {
	b, ok := a.Content[field].(bool)
	return b, ok
}

// Number returns a numeric field of the content.
func (a Answer) Number(field string) (float64, bool) {
	switch v := a.Content[field].(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// Strings returns a multi-select field of the content; every element must be
// a string.
func (a Answer) Strings(field string) ([]string, bool) {
	switch v := a.Content[field].(type) {
	case []string:
		return v, true
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// Pending returns the questions of qs that responses does not answer yet,
// or nil when every one is answered. An answer counts when it is of the kind
// the question asks for: a valid elicitation result (see [Lookup]) for an
// elicitation, a sampling result for a sampling request, a roots list for a
// roots request. Answers under keys that qs does not ask are ignored.
//
// Use it to ask again for what is missing instead of failing:
//
//	if p := ask.Pending(questions, req.Params.InputResponses); p != nil {
//		return &mcp.CallToolResult{InputRequests: p, RequestState: state}, nil, nil
//	}
func Pending(qs mcp.InputRequestMap, responses mcp.InputResponseMap) mcp.InputRequestMap {
	var out mcp.InputRequestMap
	for k, q := range qs {
		if answers(q, responses, k) {
			continue
		}
		if out == nil {
			out = make(mcp.InputRequestMap)
		}
		out[k] = q
	}
	return out
}

func answers(q mcp.InputRequest, responses mcp.InputResponseMap, key string) bool {
	switch q.(type) {
	case *mcp.ElicitParams:
		_, ok := Lookup(responses, key)
		return ok
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		r, ok := responses[key].(*mcp.CreateMessageWithToolsResult)
		return ok && r != nil
	case *mcp.ListRootsParams:
		r, ok := responses[key].(*mcp.ListRootsResult)
		return ok && r != nil
	}
	return false
}

// Stopped returns the normal result of a tool whose question was declined or
// cancelled: not an error, one text saying what did not happen and the
// user's action, such as "Deployment not started (decline)." for
// Stopped("Deployment not started", a).
func Stopped(what string, a Answer) *mcp.CallToolResult {
	why := string(a.Action)
	if why == "" {
		why = "not answered"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: what + " (" + why + ")."}}}
}
