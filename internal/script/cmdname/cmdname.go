// Package cmdname names the commands of the .mcp script language, once:
// the command table of internal/script defines each command under its name
// here, and what writes scripts (internal/script/fromcall, internal/script/fromrecording)
// writes the commands by these names. A test of internal/script checks that
// the two lists agree.
package cmdname

// The commands, in the order of the command table.
const (
	// ElicitResponse queues the answer to the next question.
	ElicitResponse = "elicit_response"
	// SampleResponse queues the reply to the next request for a model reply.
	SampleResponse = "sample_response"
	// Roots declares the roots the client offers.
	Roots = "roots"
	// CallTool calls a tool.
	CallTool = "call_tool"
	// GetPrompt gets a prompt.
	GetPrompt = "get_prompt"
	// ReadResource reads a resource.
	ReadResource = "read_resource"
	// Ping pings the server.
	Ping = "ping"
	// List lists the server's tools, prompts, resources or resource templates.
	List = "list"
	// StartTool calls a tool as a task and returns once it is started.
	StartTool = "start_tool"
	// GetTask reads a task's status.
	GetTask = "get_task"
	// CancelTask asks the server to cancel a task.
	CancelTask = "cancel_task"
	// WaitTask waits for a task to end.
	WaitTask = "wait_task"
	// AssertTaskStatus checks the status of the last task.
	AssertTaskStatus = "assert_task_status"
	// AssertElicited checks that the last command asked a question.
	AssertElicited = "assert_elicited"
	// AssertNotElicited checks that the last command asked no such question.
	AssertNotElicited = "assert_not_elicited"
	// AssertElicitedCount checks how many questions the last command asked.
	AssertElicitedCount = "assert_elicited_count"
	// AssertContains checks that the last result (or a value) contains a text.
	AssertContains = "assert_contains"
	// AssertMatch checks the last result (or a value) against a pattern with placeholders.
	AssertMatch = "assert_match"
	// AssertJSON checks the last result's JSON (or a part of it) against an expected value.
	AssertJSON = "assert_json"
	// AssertQuestion checks a question the last command asked against an expected value.
	AssertQuestion = "assert_question"
	// AssertIsError checks that the last result is an error result.
	AssertIsError = "assert_is_error"
	// AssertNotError checks that the last result is not an error result.
	AssertNotError = "assert_not_error"
	// SetVar sets a variable from the last result.
	SetVar = "set_var"
	// InputVar sets a variable from a line a person types.
	InputVar = "input_var"
	// AssertEquals checks that the last result (or a value) equals another.
	AssertEquals = "assert_equals"
	// AssertNumber checks that a value is a number.
	AssertNumber = "assert_number"
	// AssertGt checks that a number is greater than a limit.
	AssertGt = "assert_gt"
	// AssertStringLength checks a text's length.
	AssertStringLength = "assert_string_length"
	// ExpectError runs a command that must fail.
	ExpectError = "expect_error"
	// AssertErrorCode checks the JSON-RPC error code of the last failure.
	AssertErrorCode = "assert_error_code"
	// Timeout runs a command within a time limit.
	Timeout = "timeout"
	// Echo prints its arguments.
	Echo = "echo"
	// Logging sets the server's log level.
	Logging = "logging"
)

// All lists every command name, in the order of the command table.
func All() []string {
	return []string{ElicitResponse, SampleResponse, Roots, CallTool, GetPrompt, ReadResource, Ping, List, StartTool, GetTask, CancelTask, WaitTask, AssertTaskStatus, AssertElicited, AssertNotElicited, AssertElicitedCount, AssertContains, AssertMatch, AssertJSON, AssertQuestion, AssertIsError, AssertNotError, SetVar, InputVar, AssertEquals, AssertNumber, AssertGt, AssertStringLength, ExpectError, AssertErrorCode, Timeout, Echo, Logging}
}
