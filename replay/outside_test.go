package replay

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// claimChunkBytes is the size of a chunk of claims, mapped whole.
const claimChunkBytes = int(unsafe.Sizeof(claimChunk{}))

// canMap reports whether this system maps memory for a store's records.
func canMap() bool {
	b := mapPages(pageSize)
	if b == nil {
		return false
	}
	unmapPages(b)
	return true
}

// A claim's record holds no pointer: it is kept where the collector does not
// look.
func TestClaimRecordsHoldNoPointers(t *testing.T) {
	var c claimed
	for _, f := range []any{c.key, c.expiry, c.user} {
		switch f.(type) {
		case memKey, int64, uint32:
		default:
			t.Fatalf("a claim holds a %T: check that it holds no pointer before keeping it outside the heap", f)
		}
	}
	if got := unsafe.Sizeof(c); got != 32 {
		t.Fatalf("a claim takes %d bytes, not 32: a chunk is no longer a whole number of pages", got)
	}
}

// A store's live nonces take no room in the collected heap where memory can
// be mapped: a server's collections do not grow more frequent as the store
// fills (the heap it keeps is that of the users it counts).
func TestMemoryKeepsItsRecordsOutsideTheHeap(t *testing.T) {
	if !canMap() {
		t.Skip("no memory mapped here: the records stay on the heap")
	}
	const n = 50_000
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	nonces := make([]string, n)
	for i := range nonces {
		nonces[i] = fmt.Sprintf("nonce-%016d-abcdef", i)
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	h0 := heap()
	m := NewMemory(nil)
	for _, nonce := range nonces {
		if err := m.ClaimUser(ctx, "127.0.0.1", nonce, later); err != nil {
			t.Fatal(err)
		}
	}
	h1 := heap()
	if m.Len() != n {
		t.Fatalf("%d nonces held, want %d", m.Len(), n)
	}
	for _, nonce := range nonces[:100] {
		if err := m.ClaimUser(ctx, "127.0.0.1", nonce, later); err == nil {
			t.Fatalf("nonce %q claimed twice", nonce)
		}
	}
	// Before, about 43 bytes a nonce (2 MB here); the map of regions
	// takes a few bytes per 1,024 nonces.
	t.Logf("the heap grew by %d bytes for %d nonces", int64(h1)-int64(h0), n)
	if grown := int64(h1) - int64(h0); grown > n {
		t.Errorf("the heap grew by %d bytes for %d nonces, %.1f a nonce", grown, n, float64(grown)/n)
	}
	if got := m.order.mem.mapped(); got < n*32 {
		t.Errorf("%d bytes mapped for %d nonces of 32 bytes", got, n)
	}
	runtime.KeepAlive(nonces)
}

// What a store maps it returns: chunks emptied by expiry and sweeps, the
// index it outgrew, and all of it once the store itself is collected.
func TestMemoryReturnsItsPages(t *testing.T) {
	if !canMap() {
		t.Skip("no memory mapped here")
	}
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	m := NewMemory(&MemoryOptions{Now: func() time.Time { return now }})
	for i := range 20 * claimChunkLen {
		if err := m.ClaimUser(ctx, fmt.Sprint("user-", i%50), fmt.Sprintf("nonce-%016d-abcdef", i), now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	o := m.order.mem
	full := o.mapped()
	if full < 20*claimChunkBytes {
		t.Fatalf("%d bytes mapped for %d claims", full, 20*claimChunkLen)
	}
	// All expire: a claim forgets them, chunk by chunk, and a sweep
	// rebuilds the index small.
	now = now.Add(2 * time.Minute)
	if err := m.ClaimUser(ctx, "user-0", "nonce-after-the-others", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m.Sweep()
	if m.Len() != 1 {
		t.Fatalf("%d nonces held after expiry, want 1", m.Len())
	}
	if got := o.mapped(); got > 2*claimChunkBytes {
		t.Fatalf("%d bytes still mapped for 1 nonce (%d when full)", got, full)
	}
	// The store collected, its cleanup returns the rest.
	m = nil
	for i := 0; o.mapped() != 0 && i < 1000; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := o.mapped(); got != 0 {
		t.Fatalf("%d bytes still mapped after the store was collected", got)
	}
}
