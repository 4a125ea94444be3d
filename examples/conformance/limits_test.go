package main

import (
	"net/http/httptest"
	"testing"

	"github.com/askback/askback/internal/testsupport/bodylimit"
	"github.com/askback/askback/reqstate"
)

// A request body over the limit is refused with 413 before the server reads it.
func TestHTTPBodyIsBounded(t *testing.T) {
	hs := httptest.NewServer(httpHandler(newServer(mustCodec(t))))
	t.Cleanup(hs.Close)
	bodylimit.Refused(t, hs.URL+"/mcp", maxRequestBody, nil)
}

func mustCodec(t *testing.T) *reqstate.Codec {
	t.Helper()
	c, err := newCodec("")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
