package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request body over the limit is refused with 413 before the server
// decodes it: a 3.9 MB service name never reaches the tools.
func TestHTTPBodyIsBounded(t *testing.T) {
	srv, err := newServer(strings.Repeat("k", 32), memoryStores(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpHandler(srv, nil))
	t.Cleanup(hs.Close)
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rollout","arguments":{"service":"` +
		strings.Repeat("a", maxRequestBody) + `","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", bytes.NewReader([]byte(huge)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d for a %d-byte body, want 413", resp.StatusCode, len(huge))
	}
}

func memoryStores(t *testing.T) *stores {
	t.Helper()
	st, err := openStores(context.Background(), &deployFlags{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.close() })
	return st
}
