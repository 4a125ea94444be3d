// Package proxy is what `mcp-tester proxy` runs: a transparent forwarder
// between a real MCP client and a real server that writes down what they
// say (internal/recording) as it passes.
//
// It is no client: it opens no session of its own, decodes nothing it
// forwards, answers no question. Each side gets the other's bytes as they
// were sent (ids included), with three documented exceptions over HTTP,
// where the server's own address would send the client around the proxy
// (see [Handler]). That is why it is the one place besides
// internal/client/session that talks to servers: a session speaks for the tester,
// the proxy speaks for nobody.
//
// Over stdio ([Stdio]) it runs the server command and forwards
// newline-delimited JSON-RPC between its own stdin/stdout and the server's.
// Over HTTP ([Handler]) it listens on a loopback address and forwards every
// request to the server's origin: Streamable HTTP (JSON answers, event
// streams, the GET stream, sessions, both protocol eras, Last-Event-ID
// resumption) and the HTTP+SSE transport of 2024-11-05.
//
// Credentials pass through and are never recorded: every one the proxy
// sees (credential headers, cookies, session ids, tokens in URLs) is given
// to the recording's Writer before the entry that may hold it is written.
package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/recording"
)

// MaxMessage bounds what the proxy holds of one message or body: the
// tester's bound on an answer (16 MiB). A larger message still passes,
// unrecorded (a limit event says so); a request body over it is refused.
const MaxMessage = target.MaxBody

// Name is how the proxy names itself to a client, in the errors it sends
// in place of a server's answer.
const Name = "mcp-tester proxy"

// recorder writes entries to a recording and says once on log when
// writing fails; forwarding goes on either way.
type recorder struct {
	w    *recording.Writer
	log  io.Writer
	once sync.Once
}

func (r *recorder) check(err error) {
	if err == nil || err == recording.ErrStopped {
		return
	}
	r.once.Do(func() {
		fmt.Fprintf(r.log, "%s: the recording could not be written, forwarding goes on unrecorded: %v\n", Name, err)
	})
}

// messages records the JSON-RPC message, or each message of the batch, in
// body; a body that is not JSON, or JSON that is no JSON-RPC, is recorded
// as such (recording.Writer.Message).
func (r *recorder) messages(dir string, body []byte, h *recording.HTTP) {
	if len(bytes.TrimSpace(body)) == 0 {
		return
	}
	r.check(r.w.Message(dir, body, h))
}

func (r *recorder) event(e recording.Entry) { r.check(r.w.Event(e)) }

// isRPC reports whether body holds JSON-RPC: an object with "jsonrpc", or
// a batch of them.
func isRPC(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || (body[0] != '{' && body[0] != '[') || !json.Valid(body) {
		return false
	}
	if body[0] == '{' {
		if rpc, sure := quickRPC(body); sure {
			return rpc
		}
	}
	return decodedRPC(body)
}

// decodedRPC is isRPC of valid JSON, by decoding it.
func decodedRPC(body []byte) bool {
	var probe struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) != nil || len(batch) == 0 {
			return false
		}
		body = batch[0]
	}
	return json.Unmarshal(body, &probe) == nil && probe.JSONRPC != nil
}

// quickRPC is isRPC of an object, valid JSON, read without decoding it
// when its keys are plain (ASCII, no escapes, "jsonrpc" in any case once):
// rpc is what decoding it into isRPC's probe says, and sure false when the
// keys are not plain and only the decoder can say.
func quickRPC(body []byte) (rpc, sure bool) {
	var version []byte
	n := 0
	plain := jsonscan.Members(body, func(m jsonscan.Member) bool {
		if !plainKey(m.Key) {
			return false
		}
		if bytes.EqualFold(m.Key, []byte("jsonrpc")) {
			version, n = m.Value, n+1
		}
		return true
	})
	if !plain || n > 1 {
		return false, false
	}
	// A string sets the probe's pointer; null or no member leaves it nil;
	// any other value fails the decoding.
	return n == 1 && version[0] == '"', true
}

// plainKey reports whether a key as written is one whose bytes are its
// value and which encoding/json matches against a field's name by ASCII
// case alone: printable ASCII, no escape.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}
