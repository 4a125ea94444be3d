package standin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ProblemMalformed is a line of the client's input (stdio) that is no
// JSON-RPC message, or a request whose id is null: the stand-in answers it
// with the JSON-RPC error (parse error, invalid request) and reads on.
const ProblemMalformed = "malformed"

// Answers to what the client sent that the stand-in could not take as a
// message, as JSON-RPC 2.0 gives them (an id it could not read is null).
var (
	parseErrorAnswer     = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is no JSON-RPC message"}}` + "\n")
	invalidRequestAnswer = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a request's id is a string or a number, not null"}}` + "\n")
)

// clientLines copies the client's input to w a line at a time, leaving out
// each line that is no JSON-RPC message (the shared reader,
// recording.DecodeMessage) and each request whose id is null: each is
// reported to bad with its line number, and answered (answer) with the
// JSON-RPC error. A line longer than the reader's buffer is passed on
// whole, unread, for the go-sdk's own bound to refuse; so is a batch.
func clientLines(in io.Reader, w io.Writer, answer func([]byte) (int, error), bad func(n int, why string)) error {
	r := bufio.NewReaderSize(in, 64<<10)
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: on to the go-sdk as it comes, to its end.
			n++
			for errors.Is(err, bufio.ErrBufferFull) {
				if _, werr := w.Write(line); werr != nil {
					return werr
				}
				line, err = r.ReadSlice('\n')
			}
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			continue
		}
		if len(line) > 0 {
			n++
			if why, reply := malformed(line); why != "" {
				bad(n, why)
				if _, werr := answer(reply); werr != nil {
					return werr
				}
			} else if _, werr := w.Write(line); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}

// malformed says what is wrong with one line of the client's input, and
// the JSON-RPC error that answers it; "" when it is a message (or blank, or
// a batch, which the go-sdk reads).
func malformed(line []byte) (why string, reply []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '[' {
		return "", nil
	}
	msg, err := recording.DecodeMessage(t)
	if err != nil {
		return fmt.Sprintf("no JSON-RPC message (%s): %s", termsafe.Line(err.Error()), quoted(t)), parseErrorAnswer
	}
	if nullID(msg, t) {
		return "a request whose id is null (a request's id is a string or a number; a notification has none): " + quoted(t), invalidRequestAnswer
	}
	return "", nil
}

// nullID reports whether msg, decoded from t, is a request with "id": null.
func nullID(msg jsonrpc.Message, t []byte) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.IsCall() {
		return false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(t, &members) != nil {
		return false
	}
	id, has := members["id"]
	return has && bytes.Equal(bytes.TrimSpace(id), []byte("null"))
}

// quoted is the start of a line as it can be shown: escaped, at most 200
// bytes.
func quoted(t []byte) string {
	const most = 200
	if len(t) > most {
		return termsafe.Line(string(t[:most])) + "…"
	}
	return termsafe.Line(string(t))
}
