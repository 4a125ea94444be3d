package session

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Kind classifies what went wrong, so a command can choose its exit code.
type Kind int

// The kinds of failure.
const (
	// KindServer: the server answered with a JSON-RPC error.
	KindServer Kind = iota + 1
	// KindProtocol: the server broke the protocol or the rules of asking
	// (endless questions, a malformed question, a question it may not ask).
	KindProtocol
	// KindAnswer: an answer given to the tester does not fit its question.
	KindAnswer
	// KindUnreachable: the server could not be reached, exited, or did not
	// answer in time.
	KindUnreachable
)

// Error is a failure of a session operation, with the kind and, for a
// command server, the tail of what it wrote to stderr.
type Error struct {
	Kind   Kind
	Op     string // e.g. `tools/call "deploy"`
	Err    error
	Stderr string
	// Round is, for an answer refused in the middle of a call, the number
	// of requests of the call already sent: something reached the server,
	// though the call was left unfinished. Zero when nothing was sent.
	Round int
	// Cancelled is set when the refused answer was for a question the
	// server asked with a request of its own (protocol 2025-11-25): the
	// request got an error without the answer (unless the server withdrew
	// it first), and the call was cancelled.
	Cancelled bool
}

// Sent reports whether err happened after a request had reached the
// server: anything but a mistake found before the first request.
func Sent(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind != KindAnswer || e.Round > 0
	}
	return true
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	// What the server said stays on this line: it cannot forge lines of
	// its own, nor drive the terminal (see internal/text/termsafe).
	b.WriteString(termsafe.Line(saidOnce(e.Op, e.Err.Error())))
	switch {
	case e.Round > 0 && e.Cancelled:
		fmt.Fprintf(&b, " (the answer was not sent: the call was cancelled after %d request(s))", e.Round)
	case e.Round > 0:
		fmt.Fprintf(&b, " (nothing more was sent: the call stays unfinished after %d request(s))", e.Round)
	}
	if e.Stderr != "" {
		b.WriteString("\nthe server's last words on stderr:\n")
		for _, l := range strings.Split(e.Stderr, "\n") {
			b.WriteString("  | " + termsafe.Line(l) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (e *Error) Unwrap() error { return e.Err }

// saidOnce is msg, the message of an operation's error, without what op
// (`tasks/get "t1"`) already says at its front: the go-sdk's `calling
// "tasks/get": `, a package's own `tasks/get t1: ` or op itself, each of
// which would say the operation twice.
func saidOnce(op, msg string) string {
	if op == "" {
		return msg
	}
	method, name, _ := strings.Cut(op, " ")
	if n, err := strconv.Unquote(name); err == nil {
		name = n
	}
	repeats := []string{op + ": ", `calling "` + method + `": `}
	if name != "" {
		repeats = append(repeats, method+" "+name+": ")
	} else {
		repeats = append(repeats, method+": ")
	}
	for {
		cut := false
		for _, r := range repeats {
			if rest, ok := strings.CutPrefix(msg, r); ok && rest != "" {
				msg, cut = rest, true
			}
		}
		if !cut {
			return calledOnce(msg)
		}
	}
}

// calledOnce is msg without the go-sdk's `calling "M": ` where the words
// before it already name M (`tasks/update t1: calling "tasks/update": `).
func calledOnce(msg string) string {
	const mark = `: calling "`
	from := 0
	for {
		i := strings.Index(msg[from:], mark)
		if i < 0 {
			return msg
		}
		i += from
		method, _, ok := strings.Cut(msg[i+len(mark):], `": `)
		start := strings.LastIndex(msg[:i], ": ") + 2 // the words before: from the last ": ", or the start
		if start < 2 {
			start = 0
		}
		if ok && strings.HasPrefix(msg[start:i], method+" ") {
			msg = msg[:i+2] + msg[i+len(mark)+len(method)+3:]
		}
		from = i + 2
	}
}

// KindOf returns the kind of err, 0 when it is not a session error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// OwnMistake reports whether err is a mistake of the tester's side, not
// an error the server made: an answer given to the tester that does not
// fit its question, a question nobody answered where each must be
// answered (answer.Required: --strict, asktest), a model reply that is
// missing, an answerer that failed, a request the session's options do
// not allow (KindAnswer). A run that expects a call to fail (a script's
// expect_error, asktest's WantError) expects the server's error: a
// JSON-RPC error, a tool result marked isError, a breach of the protocol
// or of the rules of asking, a server that cannot be reached or did not
// answer in time. This is the one place that tells the two apart.
func OwnMistake(err error) bool { return KindOf(err) == KindAnswer }

// RPCError returns the JSON-RPC error the server sent inside err, if any.
// The go-sdk's own "rejected by transport" (a request that did not reach
// the server, or an HTTP answer it could not use) is no answer of the
// server's and is not returned.
func RPCError(err error) *jsonrpc.Error {
	var w *jsonrpc.Error
	if errors.As(err, &w) && w.Code != codeRejected {
		return w
	}
	return nil
}

// codeRejected is the code of the go-sdk's error for a message its
// transport could not deliver or whose answer it refused.
const codeRejected = -32005

// ErrTooLarge is what a list a server sends past the tester's bounds (more
// pages than MaxPages; in internal/catalog, more items or bytes than a
// catalog takes) is refused with, wrapped in a KindProtocol error
// ([TooLarge]): the server sent more than the tester takes, as an answer
// over its size bound.
var ErrTooLarge = errors.New("the server's catalog is larger than the tester takes")

// TooLarge is the error of the list op that passed a bound (what: "more
// than 1000 pages"): KindProtocol, wrapping ErrTooLarge, in one wording
// wherever a list is bounded.
func TooLarge(op, what string) *Error {
	return &Error{Kind: KindProtocol, Op: op, Err: fmt.Errorf("%s; stopped: %w", what, ErrTooLarge)}
}

func protocolErr(op, format string, args ...any) *Error {
	return &Error{Kind: KindProtocol, Op: op, Err: fmt.Errorf(format, args...)}
}
