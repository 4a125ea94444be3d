package target

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// untiedLen bounds the message it reads: what a server writes to say why
// it refused a request is a sentence or two, and a message longer than
// this (a line of an event or of stdout) is not read for one.
const untiedLen = 16 << 10

// untiedShown is how many bytes of the server's own message are shown.
const untiedShown = 1000

// Untied is a JSON-RPC error the server tied to no request: its id null,
// or absent, as JSON-RPC 2.0 answers a request whose id the server could
// not read, and as the TypeScript SDK answers every request its transport
// refuses (a session it does not know, a missing session id). The go-sdk
// does not read it (a response must have an id): the tester reads it
// itself (recording.DecodeMessage, the reader of the proxy's recordings)
// to say what the server said.
type Untied struct {
	Err *jsonrpc.Error
	// NoID says that the message had no id at all (else its id was null).
	NoID bool
}

func (u *Untied) String() string {
	id := "id null"
	if u.NoID {
		id = "no id"
	}
	return fmt.Sprintf("an error it tied to no request (%s): %d %s", id, u.Err.Code, termsafe.Clip(u.Err.Message, untiedShown))
}

// errorKey is what a message that may be an error holds: only lines and
// events that hold it are decoded.
var errorKey = []byte(`"error"`)

// readUntied returns the error b is when it is one JSON-RPC error whose id
// is null or absent, or nil.
func readUntied(b []byte) *Untied {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > untiedLen || b[0] != '{' || !bytes.Contains(b, errorKey) {
		return nil
	}
	msg, err := recording.DecodeMessage(b)
	if err != nil {
		return nil
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.ID.IsValid() {
		return nil
	}
	var w *jsonrpc.Error
	if r.Error == nil || !asWire(r.Error, &w) {
		return nil
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(b, &members)
	_, hasID := members["id"]
	return &Untied{Err: w, NoID: !hasID}
}

func asWire(err error, w **jsonrpc.Error) bool {
	e, ok := err.(*jsonrpc.Error)
	if ok {
		*w = e
	}
	return ok
}

// lines hands each line of what is fed to it to line, without its line
// end; a line longer than untiedLen is not handed over.
type lines struct {
	cur  []byte
	over bool
	line func([]byte)
}

// feed reads p, a piece of the stream.
func (l *lines) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if !l.over {
			if len(l.cur)+len(part) > untiedLen {
				l.over, l.cur = true, l.cur[:0]
			} else {
				l.cur = append(l.cur, part...)
			}
		}
		if i < 0 {
			return
		}
		if !l.over {
			l.line(bytes.TrimSuffix(l.cur, []byte{'\r'}))
		}
		l.cur, l.over = l.cur[:0], false
		p = p[i+1:]
	}
}

// events reads the lines of an event stream and keeps the last untied
// error one of its events carried.
type events struct {
	data   []byte
	untied *Untied
}

func (e *events) line(l []byte) {
	switch {
	case len(l) == 0:
		if u := readUntied(e.data); u != nil {
			e.untied = u
		}
		e.data = e.data[:0]
	case bytes.HasPrefix(l, []byte("data:")):
		d := bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" "))
		if len(e.data)+len(d) <= untiedLen {
			if len(e.data) > 0 {
				e.data = append(e.data, '\n')
			}
			e.data = append(e.data, d...)
		}
	}
}

// stdoutWatch reads a command server's stdout as the go-sdk reads it, for
// the first error tied to no request, which the go-sdk refuses to read.
type stdoutWatch struct {
	mu     sync.Mutex
	l      lines
	untied *untiedMsg
}

// untiedMsg is an error tied to no request, and the message it is.
type untiedMsg struct {
	*Untied
	msg jsonrpc.Message
}

func newStdoutWatch() *stdoutWatch {
	w := &stdoutWatch{}
	w.l.line = func(b []byte) {
		if w.untied != nil {
			return
		}
		if u := readUntied(b); u != nil {
			w.untied = &untiedMsg{Untied: u, msg: &jsonrpc.Response{Error: u.Err, Extra: recording.UntiedID{Null: !u.NoID}}}
		}
	}
	return w
}

// Write reads p, the next bytes of stdout.
func (w *stdoutWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.l.feed(p)
	w.mu.Unlock()
	return len(p), nil
}

// first is the first error tied to no request read, or nil.
func (w *stdoutWatch) first() *untiedMsg {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.untied
}

// invalidRequest reports whether err is the go-sdk's refusal of a message
// it read: "invalid request", what it says of a response without a valid
// id.
func invalidRequest(err error) bool {
	var w *jsonrpc.Error
	return errors.As(err, &w) && w.Code == jsonrpc.CodeInvalidRequest && w.Message == "invalid request"
}
