package tasks

import (
	"errors"
	"fmt"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrCannotAsk is returned by [Task.Ask] when the client cannot be asked: it
// did not declare the elicitation mode, or the call runs synchronously on a
// protocol that cannot carry a question in the middle of a call. The task's
// code should carry on without the answer or end with a normal result.
var ErrCannotAsk = errors.New("the client cannot be asked this question")

// ErrKeyReused is returned by [Task.Ask] for a key the task already used:
// question keys are unique over a task's lifetime.
var ErrKeyReused = errors.New("question key already used by this task")

// Causes of a task's context ending, as context.Cause reports them.
var (
	// ErrCancelled is the cause when the client sent tasks/cancel.
	ErrCancelled = errors.New("the client cancelled the task")
	// ErrShutdown is the cause when the server shuts down.
	ErrShutdown = errors.New("the server shut down before the task finished")
	// ErrExpired is the cause when the task outlived its time to live.
	ErrExpired = errors.New("the task outlived its time to live")
	// ErrEvicted is the cause when the extension, running Options.MaxTasks
	// unfinished tasks, ended the task to give its place to a caller holding
	// fewer: its caller held the most.
	ErrEvicted = errors.New("the server needed the task's place for another caller's task")
)

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func internalError(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(format, args...)}
}

// missingCapability is the error for a client that did not declare the
// extension on a request that needs it.
func missingCapability() error {
	return ask.MissingCapability(&mcp.ClientCapabilities{Extensions: map[string]any{ExtensionID: map[string]any{}}})
}

// errorObject turns what a task's code returned into the JSON-RPC error a
// failed task carries.
func errorObject(err error) *ErrorObject {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &ErrorObject{Code: je.Code, Message: je.Message, Data: je.Data}
	}
	var eo *ErrorObject
	if errors.As(err, &eo) {
		return eo
	}
	return &ErrorObject{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
