package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID is the identifier of the tasks extension, the key under
// capabilities.extensions on both sides.
const ExtensionID = "io.modelcontextprotocol/tasks"

// The JSON-RPC methods of the extension.
const (
	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"
)

// The values of a result's resultType that matter to this extension.
const (
	ResultTypeTask     = "task"
	ResultTypeComplete = "complete"
)

// JSON-RPC error codes the extension uses besides the standard ones.
const (
	// CodeHeaderMismatch is returned when the Mcp-Name routing header of a
	// tasks/* request disagrees with params.taskId.
	CodeHeaderMismatch = -32020
)

// Status is the state of a task.
type Status string

// The statuses of a task. Completed, failed and cancelled are terminal.
const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Terminal reports whether a task in this status will never change again.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// Valid reports whether s is one of the five statuses the extension defines.
func (s Status) Valid() bool {
	switch s {
	case StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Info is the Task shape of the extension: the metadata every task-bearing
// message carries.
type Info struct {
	TaskID        string `json:"taskId"`
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are RFC 3339 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is the time to live from creation in milliseconds; nil means
	// unlimited and is sent as null.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs is the suggested polling interval in milliseconds.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
}

// ErrorObject is a JSON-RPC error as a failed task carries it.
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *ErrorObject) Error() string {
	return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code)
}

// CreateTaskResult is what a tools/call answers instead of a CallToolResult
// when the server runs the call as a task: resultType "task" and the task's
// metadata, flat.
type CreateTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Info
}

// GetTaskParams are the params of tasks/get.
type GetTaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// GetTaskResult is the answer to tasks/get: the task's metadata and, by
// status, the outstanding questions, the final result or the error.
type GetTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Info
	// InputRequests holds the unanswered questions while the status is
	// input_required, each as {"method": ..., "params": ...}.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// Result is the final result of the call (a CallToolResult) once the
	// status is completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error once the status is failed.
	Error *ErrorObject `json:"error,omitempty"`
}

// UpdateTaskParams are the params of tasks/update. The answers stay raw so
// that an answer for a key the task never asked is ignored, not rejected.
type UpdateTaskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// UnmarshalJSON reads the params as the go-sdk reads them, refusing an
// object with a key twice at any depth (one question's answer given twice
// in inputResponses: the go-sdk keeps the last, another reader the first).
func (p *UpdateTaskParams) UnmarshalJSON(data []byte) error {
	type plain UpdateTaskParams
	var v plain
	if err := strictjson.DecodeAsSDK(data, &v); err != nil {
		return err
	}
	*p = UpdateTaskParams(v)
	return nil
}

// UpdateTaskResult is the empty acknowledgement of tasks/update.
type UpdateTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// CancelTaskParams are the params of tasks/cancel.
type CancelTaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// CancelTaskResult is the empty acknowledgement of tasks/cancel.
type CancelTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// inputRequestWire is one entry of inputRequests on the wire.
type inputRequestWire struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// methodElicit is the method of an elicitation question.
const methodElicit = "elicitation/create"
