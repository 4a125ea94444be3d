package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DecodeMessage decodes one recorded JSON-RPC message: what the go-sdk
// decodes, and an error response whose id is null, which JSON-RPC 2.0
// answers a request with when it could not read the request's id (a
// server that refuses a request before reading it, such as one that
// answers an HTTP 400 "Server not initialized"). Such a response is a
// *jsonrpc.Response whose ID is not valid. What is no JSON-RPC message
// is an error that says what it is.
func DecodeMessage(b []byte) (jsonrpc.Message, error) {
	msg, err := jsonrpc.DecodeMessage(b)
	if err == nil {
		return msg, nil
	}
	var w struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *jsonrpc.Error  `json:"error"`
	}
	if json.Unmarshal(b, &w) != nil || w.Version != "2.0" || w.Method != nil {
		return nil, err
	}
	id := bytes.TrimSpace(w.ID)
	switch {
	case len(id) == 0:
		return nil, errors.New("a response without an id")
	case string(id) != "null":
		return nil, fmt.Errorf("a response whose id %s is neither a string nor a number", id)
	case w.Error == nil || w.Result != nil:
		return nil, errors.New("a response with a null id that is no error (only an error may have a null id)")
	}
	return &jsonrpc.Response{Error: w.Error}, nil
}
