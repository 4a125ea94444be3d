package standin

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/suggest"
)

// FaultKind is what a fault does to a request.
type FaultKind int

// The kinds of faults.
const (
	// FaultDelay holds the answer for Fault.Delay, then answers.
	FaultDelay FaultKind = iota + 1
	// FaultError answers with a JSON-RPC error (Fault.Code, Fault.Message)
	// instead of the recorded answer.
	FaultError
	// FaultDrop answers nothing and drops the connection: over HTTP the
	// request's TCP connection is closed, over stdio the stand-in's output
	// is closed and the session ends.
	FaultDrop
)

// Fault is a fault injected into the requests of one method (and one
// tool, prompt or resource when Name is set).
type Fault struct {
	Method  string
	Name    string // the tool or prompt name or resource URI; "" for every one
	Kind    FaultKind
	Delay   time.Duration
	Code    int64
	Message string
	Spec    string // as written
}

// Bounds of a fault spec.
const (
	// MaxFaultDelay is the longest delay a fault may hold an answer.
	MaxFaultDelay = 10 * time.Minute
	maxFaultSpec  = 1024
)

// DefaultFaultMessage is the message of an error fault that names none.
const DefaultFaultMessage = "fault injected by mcp-tester serve"

// faultMethods are the methods a fault may name.
var faultMethods = []string{
	"initialize", "ping", "server/discover",
	"tools/list", "tools/call",
	"prompts/list", "prompts/get",
	"resources/list", "resources/read", "resources/templates/list",
	"resources/subscribe", "resources/unsubscribe",
	"completion/complete", "logging/setLevel",
}

// namedMethods are the methods whose requests name a tool, a prompt or a
// resource.
var namedMethods = []string{"tools/call", "prompts/get", "resources/read"}

// ParseFault reads a fault spec: METHOD[ NAME]:ACTION, where ACTION is
// delay=DURATION (a Go duration: 2s, 150ms), error=CODE[:MESSAGE] (an
// integer JSON-RPC code; the message defaults to DefaultFaultMessage) or
// drop. NAME, for tools/call, prompts/get and resources/read only, limits
// the fault to the tool, prompt or resource of that name.
//
//	tools/call:delay=2s
//	tools/call deploy:error=-32603:boom
//	tools/list:drop
func ParseFault(spec string) (Fault, error) {
	f := Fault{Spec: spec}
	if len(spec) > maxFaultSpec {
		return f, fmt.Errorf("longer than %d bytes", maxFaultSpec)
	}
	if !utf8.ValidString(spec) {
		return f, errors.New("not valid UTF-8")
	}
	if i := strings.IndexFunc(spec, func(r rune) bool { return unicode.IsControl(r) }); i >= 0 {
		return f, fmt.Errorf("a control character at byte %d", i)
	}
	target, action, ok := strings.Cut(spec, ":")
	if !ok {
		return f, errors.New(`no action: write METHOD[ NAME]:ACTION, e.g. "tools/call:delay=2s", "tools/call deploy:error=-32603:boom" or "tools/list:drop"`)
	}
	if err := f.parseTarget(target); err != nil {
		return f, err
	}
	return f, f.parseAction(action)
}

// parseTarget reads METHOD[ NAME], the requests a fault applies to.
func (f *Fault) parseTarget(target string) error {
	method, name, named := strings.Cut(target, " ")
	f.Method, f.Name = method, name
	if !slices.Contains(faultMethods, method) {
		if method == "" {
			return errors.New("no method before the colon")
		}
		msg := fmt.Sprintf("unknown method %q", method)
		if near, ok := suggest.Closest(method, faultMethods); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return errors.New(msg)
	}
	if !named {
		return nil
	}
	if !slices.Contains(namedMethods, method) {
		return fmt.Errorf("%s requests name no tool, prompt or resource: a name applies to %s", method, strings.Join(namedMethods, ", "))
	}
	if name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("the name after %s must be one word (a tool or prompt name or a resource URI), got %q", method, name)
	}
	return nil
}

// parseAction reads ACTION: delay=DURATION, error=CODE[:MESSAGE] or drop.
func (f *Fault) parseAction(action string) error {
	kind, arg, hasArg := strings.Cut(action, "=")
	switch kind {
	case "delay":
		return f.parseDelay(arg, hasArg)
	case "error":
		return f.parseError(arg, hasArg)
	case "drop":
		if hasArg {
			return errors.New("drop takes no value")
		}
		f.Kind = FaultDrop
		return nil
	case "":
		return errors.New("no action after the colon: delay=DURATION, error=CODE[:MESSAGE] or drop")
	}
	msg := fmt.Sprintf("unknown action %q", kind)
	if near, ok := suggest.Closest(kind, []string{"delay", "error", "drop"}); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg + ": use delay=DURATION, error=CODE[:MESSAGE] or drop")
}

// parseDelay reads the DURATION of delay=DURATION.
func (f *Fault) parseDelay(arg string, hasArg bool) error {
	if !hasArg || arg == "" {
		return errors.New("delay needs a duration: delay=2s")
	}
	d, err := time.ParseDuration(arg)
	if err != nil {
		return fmt.Errorf("delay=%s: not a duration (write 2s, 150ms, 1m)", arg)
	}
	if d <= 0 || d > MaxFaultDelay {
		return fmt.Errorf("delay=%s: give a duration above 0 and at most %v", arg, MaxFaultDelay)
	}
	f.Kind, f.Delay = FaultDelay, d
	return nil
}

// parseError reads the CODE[:MESSAGE] of error=CODE[:MESSAGE].
func (f *Fault) parseError(arg string, hasArg bool) error {
	if !hasArg || arg == "" {
		return errors.New("error needs a JSON-RPC code: error=-32603 or error=-32603:MESSAGE")
	}
	code, msg, hasMsg := strings.Cut(arg, ":")
	n, err := parseErrorCode(code)
	if err != nil {
		return fmt.Errorf("error=%s: %w", arg, err)
	}
	if hasMsg && msg == "" {
		return fmt.Errorf("error=%s: an empty message after the code; leave out the colon for the default", arg)
	}
	if !hasMsg {
		msg = DefaultFaultMessage
	}
	f.Kind, f.Code, f.Message = FaultError, n, msg
	return nil
}

// parseErrorCode reads a JSON-RPC error code: an integer written plainly
// (no sign +, no leading zero), within 32 bits, not 0.
func parseErrorCode(code string) (int64, error) {
	n, err := strconv.ParseInt(code, 10, 64)
	if err != nil || strings.HasPrefix(code, "+") || (len(code) > 1 && code[0] == '0') || strings.HasPrefix(code, "-0") {
		return 0, fmt.Errorf("the code %q is not an integer", code)
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("the code %d is outside the 32-bit range JSON-RPC clients read", n)
	}
	if n == 0 {
		return 0, errors.New("0 is no error code")
	}
	return n, nil
}

// applies reports whether f applies to a request of method naming name.
func (f Fault) applies(method, name string) bool {
	return f.Method == method && (f.Name == "" || f.Name == name)
}
