package script

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conn is what the runner needs from a session with a server. Each script
// runs on its own Conn, made by RunOptions.Connect and closed at the end.
//
// The asking methods (CallTool, GetPrompt, ReadResource) receive the answers
// queued by elicit_response for this command; the Conn hands them to the
// questions the server asks (answers with a Key go to that question first,
// the others in order; a question with no answer left is declined) and
// reports in the Outcome the questions asked and the answers it did not use,
// as they were given (their Origin says which elicit_response line queued
// them). On error they may still return an Outcome with the questions asked
// before the error.
type Conn interface {
	CallTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error)
	GetPrompt(ctx context.Context, name string, args map[string]string, answers []answer.Spec) (*Outcome, error)
	ReadResource(ctx context.Context, uri string, answers []answer.Spec) (*Outcome, error)
	// ListTools lists the server's tools; the runner uses the input schemas
	// to convert call_tool arguments.
	ListTools(ctx context.Context) ([]*mcp.Tool, error)
	Ping(ctx context.Context) error
	Close() error
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
	// with the answer it got, as the session logged them.
	Questions []exchange.Entry
	// Unused are the queued answers no question used.
	Unused []answer.Spec
	// Task is the state of the task the command ran as or reads, nil when
	// the server answered directly.
	Task *TaskState
}

// ErrNoTasks is returned (wrapped) by a TaskConn whose session does not
// declare the tasks extension: it cannot read, cancel or wait for a task.
// The runner reports it as a mistake of the run, which expect_error does
// not hide.
var ErrNoTasks = errors.New("the session does not declare the tasks extension")

// TaskState is what a command saw of a task (the tasks extension).
type TaskState struct {
	ID            string
	Status        string // working, input_required, completed, failed or cancelled; empty when unknown
	StatusMessage string
}

// TaskConn is a Conn that can also drive tasks, for start_tool, get_task,
// cancel_task and wait_task. A Conn without these methods still runs every
// other command; call_tool on a task tool needs nothing more than CallTool
// (which waits for the task and sets Outcome.Task).
type TaskConn interface {
	Conn
	// StartTool calls a tool without waiting for a task it may start. A
	// direct result is returned as CallTool returns it; a task sets
	// Outcome.Task (and Raw to the task handle) and leaves Result nil.
	StartTool(ctx context.Context, name string, args map[string]any, answers []answer.Spec) (*Outcome, error)
	// GetTask reads a task's state once (tasks/get): Outcome.Task, Raw (the
	// tasks/get result) and, once completed, Result (the tool's result).
	GetTask(ctx context.Context, id string) (*Outcome, error)
	// CancelTask asks the server to cancel a task (tasks/cancel).
	CancelTask(ctx context.Context, id string) error
	// WaitTask waits for a task to end, answering its questions with
	// answers as CallTool does; Outcome.Task is its final state.
	WaitTask(ctx context.Context, id string, answers []answer.Spec) (*Outcome, error)
}

// LogLevelConn is a Conn that can set the server's log level, for the
// logging command.
type LogLevelConn interface {
	Conn
	SetLogLevel(ctx context.Context, level string) error
}

// FallbackConn is a Conn whose commands can be answered, beyond their own
// queued answers and replies, by the run's: its model replies
// (RunOptions.Samples), a person (RunOptions.Fallback), and failing what
// nobody answers (RunOptions.Strict). The runner sets them once, right
// after connecting.
type FallbackConn interface {
	Conn
	SetFallback(Fallback)
}

// Fallback is who answers what a command's own answers and replies leave,
// after them in the order of answer.Who.
type Fallback struct {
	// Samples are the run's model replies, the script's own copy of
	// RunOptions.Samples: asked after a command's sample_response lines.
	Samples *answer.Samples
	// Person answers the questions nobody else does (RunOptions.Fallback).
	Person answer.Answerer
	// Strict fails the questions nobody answers instead of declining them
	// (RunOptions.Strict).
	Strict string
}
