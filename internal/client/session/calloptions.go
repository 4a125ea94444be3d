package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/askback/askback/tasks/taskclient"
)

// TaskMode says whether one tool call asks the server to run it as a task.
type TaskMode int

const (
	// TaskDefault follows the session: with Options.Tasks, a call declares
	// the tasks extension to a server that offers it (the server then
	// decides), and on protocol 2025-11-25 asks for a task for the tools
	// that require one; a tool that may run either way is called plainly.
	TaskDefault TaskMode = iota
	// TaskAsk asks for a task: the call declares the tasks extension
	// (2026-07-28) or carries params.task (2025-11-25), also for a tool
	// that may run either way. A call the server cannot run as a task
	// (see Session.TaskSupport) is refused before anything is sent.
	TaskAsk
	// TaskNone makes a plain call: no extension declared, no params.task.
	// A server may refuse it (a tool that runs only as a task), or run the
	// tool synchronously.
	TaskNone
)

// CallOptions are the options of one tool call; the zero value is what
// CallTool does.
type CallOptions struct {
	// Task says whether the call asks to run as a task.
	Task TaskMode
}

// TaskSupport is what a session knows of running one tool as a task.
type TaskSupport struct {
	// Can: a call of the tool may ask for a task (TaskAsk).
	Can bool
	// Required: the server listed the tool as one that runs only as a
	// task (protocol 2025-11-25, execution.taskSupport "required").
	Required bool
	// WhyNot says why a call cannot ask for a task, when Can is false.
	WhyNot string
}

// TaskSupport reports whether a call of the tool can ask the server to run
// it as a task: the session declared the tasks extension (Options.Tasks)
// and, on protocol 2025-11-25, the server offers task tool calls and lists
// the tool with an execution.taskSupport of "optional" or "required"; on
// later protocols the server offers the tasks extension (it decides per
// call whether a tool runs as a task).
func (s *Session) TaskSupport(ctx context.Context, name string) TaskSupport {
	if !s.opts.Tasks {
		return TaskSupport{WhyNot: "the tester does not declare the tasks extension (" + s.hint(SettingTasks, "") + ")"}
	}
	if !taskclient.Legacy(s.cs) {
		if !s.tasks {
			return TaskSupport{WhyNot: "the server does not offer the tasks extension (io.modelcontextprotocol/tasks)"}
		}
		return TaskSupport{Can: true}
	}
	required := s.requiresTask(ctx, name)
	if !s.offer.ToolCalls {
		return TaskSupport{Required: required, WhyNot: "the server does not offer task tool calls (capabilities.tasks.requests.tools.call)"}
	}
	s.mu.Lock()
	v := s.support[name]
	s.mu.Unlock()
	if v != taskclient.SupportRequired && v != taskclient.SupportOptional {
		return TaskSupport{WhyNot: fmt.Sprintf("the server does not list tool %q as one that may run as a task (its execution.taskSupport is not \"optional\" or \"required\")", name)}
	}
	return TaskSupport{Can: true, Required: required}
}

// taskRule is how a call with mode m decides whether to run through the
// task client (through) and, on protocol 2025-11-25, whether the tool
// asks for a task (asTask).
func (s *Session) taskRule(ctx context.Context, name string, m TaskMode) (through bool, asTask func(string) bool, err error) {
	switch m {
	case TaskAsk:
		if ts := s.TaskSupport(ctx, name); !ts.Can {
			return false, nil, &Error{Kind: KindAnswer, Op: fmt.Sprintf("tools/call %q", name), Err: errors.New("cannot run it as a task: " + ts.WhyNot)}
		}
		return true, func(tool string) bool { return tool == name }, nil
	case TaskNone:
		return false, nil, nil
	}
	return s.tasks || s.asTask(ctx, name), s.taskSupport, nil
}
