package main

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/bodylimit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	bodylimit.Refused(t, hs.URL+"/mcp", maxRequestBody, nil)
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

// The attack on the deployer: rollout calls with multi-megabyte service names.
// Under the HTTP limit, names of 900 kB are refused by the tasks extension's
// argument limit; memory stays where it was.
func TestRolloutFloodIsBounded(t *testing.T) {
	srv, err := newServer(strings.Repeat("k", 32), memoryStores(t), &rolloutOptions{Step: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpHandler(srv, nil))
	t.Cleanup(hs.Close)
	cs := overHTTPURL(t, hs.URL+"/mcp")
	before := heapInUse()
	name := strings.Repeat("s", 900<<10)
	for range 20 {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rollout", Arguments: map[string]any{"service": name, "version": "1"}})
		if err == nil || !strings.Contains(err.Error(), "more than the") {
			t.Fatalf("rollout with a 900 kB service name: %v, want a refusal of the arguments", err)
		}
	}
	if grown := int64(heapInUse()) - int64(before); grown > 8<<20 {
		t.Fatalf("heap grew by %d MiB over 20 refused rollouts", grown>>20)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
