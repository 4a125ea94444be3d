package script

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conn is what the runner needs from a session with a server. Each script
// runs on its own Conn, made by RunOptions.Connect and closed at the end.
//
// The asking methods (CallTool, GetPrompt, ReadResource) receive the answers
// queued by elicit_response for this command; the Conn hands them to the
// questions the server asks (answers with a Key go to that question first,
// the others in order; a question with no answer left is declined) and
// reports in the Outcome the questions asked and the answers it did not use.
// On error they may still return an Outcome with the questions asked before
// the error.
type Conn interface {
	CallTool(ctx context.Context, name string, args map[string]any, answers []Answer) (*Outcome, error)
	GetPrompt(ctx context.Context, name string, args map[string]string, answers []Answer) (*Outcome, error)
	ReadResource(ctx context.Context, uri string, answers []Answer) (*Outcome, error)
	// ListTools lists the server's tools; the runner uses the input schemas
	// to convert call_tool arguments.
	ListTools(ctx context.Context) ([]*mcp.Tool, error)
	Ping(ctx context.Context) error
	Close() error
}

// Answer is an answer queued by elicit_response.
type Answer struct {
	Key     string         // the question key it is for; empty: the next question
	Action  string         // accept, decline or cancel
	Content map[string]any // the content of an accept answer, or nil
	Line    int            // the script line that queued it
}

// Outcome is what an asking command produced.
type Outcome struct {
	// Result is the final result: *mcp.CallToolResult, *mcp.GetPromptResult
	// or *mcp.ReadResourceResult.
	Result any
	// Raw is the result's JSON as received; when empty the runner encodes
	// Result.
	Raw json.RawMessage
	// Questions are the questions asked during the command, in order, each
	// with the answer it got.
	Questions []Question
	// Unused are the queued answers no question used.
	Unused []Answer
}

// Question is one question a server asked during a command.
type Question struct {
	Key     string            // the inputRequests key (empty for server-initiated requests)
	Round   int               // 1 for the first retry's question
	Mode    string            // form or url
	Message string            // the message shown to the user
	URL     string            // url mode: the link
	Schema  any               // form mode: the requested schema
	Answer  *mcp.ElicitResult // the answer given
}
