package main

import (
	"net/http/httptest"
	"testing"

	"github.com/askback/askback/internal/bodylimit"
)

// A request body over the limit is refused with 413 before the server reads it.
func TestHTTPBodyIsBounded(t *testing.T) {
	hs := httptest.NewServer(httpHandler(newServer(), false))
	t.Cleanup(hs.Close)
	bodylimit.Refused(t, hs.URL+"/mcp", maxRequestBody, nil)
}
