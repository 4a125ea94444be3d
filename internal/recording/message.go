package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DecodeMessage decodes one recorded JSON-RPC message as the go-sdk does
// (jsonrpc.DecodeMessage: members by their exact names, "jsonrpc" "2.0",
// an id that is a string, a number or null, a request by its "method"),
// without the go-sdk's decoder, which allocates tens of kilobytes a
// message: a recording holds a million. It also decodes an error response
// whose id is null, which JSON-RPC 2.0 answers a request with when it
// could not read the request's id (a server that refuses a request before
// reading it, such as one that answers an HTTP 400 "Server not
// initialized"), or without an id, as the TypeScript SDK writes such an
// error: a *jsonrpc.Response whose ID is not valid. What is no JSON-RPC
// message is an error that says what it is.
func DecodeMessage(b []byte) (jsonrpc.Message, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	var version string
	v, ok := members["jsonrpc"]
	if !ok {
		return nil, errors.New(`no "jsonrpc":"2.0" member`)
	}
	if json.Unmarshal(v, &version) != nil || version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %s; expected \"2.0\"", members["jsonrpc"])
	}
	idRaw, hasID := members["id"]
	id, err := messageID(idRaw, hasID)
	if err != nil {
		return nil, err
	}
	if m, ok := members["method"]; ok {
		var method string
		if err := json.Unmarshal(m, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: members["params"]}, nil
	}
	return decodeResponse(members, id, hasID)
}

// messageID reads a message's id, raw (when it has one: hasID): a string
// or a number, or null.
func messageID(raw json.RawMessage, hasID bool) (jsonrpc.ID, error) {
	var idv any
	if hasID {
		if err := json.Unmarshal(raw, &idv); err != nil {
			return jsonrpc.ID{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	id, err := jsonrpc.MakeID(idv)
	if err != nil {
		return jsonrpc.ID{}, fmt.Errorf("an id %s that is neither a string nor a number", bytes.TrimSpace(raw))
	}
	return id, nil
}

// decodeResponse reads the members of a response of id; only an error
// may have a null id or none (an id not valid).
func decodeResponse(members map[string]json.RawMessage, id jsonrpc.ID, hasID bool) (jsonrpc.Message, error) {
	var werr *jsonrpc.Error
	if e := nonNull(members["error"]); e != nil {
		if err := json.Unmarshal(e, &werr); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	result := members["result"]
	switch {
	case id.IsValid():
	case !hasID && (werr == nil || nonNull(result) != nil):
		return nil, errors.New("a response without an id that is no error (only an error may have no id)")
	case werr == nil || nonNull(result) != nil:
		return nil, errors.New("a response with a null id that is no error (only an error may have a null id)")
	}
	r := &jsonrpc.Response{ID: id, Result: result}
	if werr != nil {
		r.Error = werr
	}
	if !id.IsValid() {
		r.Extra = UntiedID{Null: hasID}
	}
	return r, nil
}

// UntiedID is the Extra of a response DecodeMessage read without a valid
// id (an error tied to no request), which the go-sdk's types cannot tell
// apart: Null says its id was null; else it had no id at all. So whoever
// shows the message (the trace) shows it as it was sent.
type UntiedID struct {
	Null bool
}

// nonNull is raw, or nil when it is absent or null (as the go-sdk reads an
// omitted member).
func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

// plainRPC reports whether msg, valid JSON, is a message DecodeMessage
// reads without an error, when its top-level members show it without
// decoding them: "jsonrpc" written "2.0", an id that is a string, a short
// integer or null, and a method that is a string (a request or a
// notification), or no method, no error and an id that is not null (a
// result), each of those members once, under a key without escapes. False
// says only that DecodeMessage must tell.
func plainRPC(msg []byte) bool {
	var version, id, method []byte
	var seen uint8
	hasError := false
	ok := jsonscan.Members(msg, func(m jsonscan.Member) bool {
		var bit uint8
		switch string(m.Key) {
		case "jsonrpc":
			bit, version = 1, m.Value
		case "id":
			bit, id = 2, m.Value
		case "method":
			bit, method = 4, m.Value
		case "error":
			bit, hasError = 8, true
		default:
			return bytes.IndexByte(m.Key, '\\') < 0
		}
		if seen&bit != 0 {
			return false // the last one counts: DecodeMessage's to read
		}
		seen |= bit
		return true
	})
	if !ok || string(version) != `"2.0"` || (id != nil && !plainID(id)) {
		return false
	}
	if method != nil {
		return method[0] == '"'
	}
	return !hasError && id != nil && string(id) != "null"
}

// plainID reports whether an id as written is one DecodeMessage reads: a
// string, null, or an integer of at most 15 digits (exact as a float64).
func plainID(id []byte) bool {
	switch {
	case id[0] == '"' || string(id) == "null":
		return true
	case id[0] == '-':
		id = id[1:]
	}
	if len(id) == 0 || len(id) > 15 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
