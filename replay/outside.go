package replay

import (
	"sync"
	"unsafe"
)

// outside is where a [Memory] store keeps its claim order and its nonce
// index: memory mapped from the operating system rather than allocated from
// the collected heap, where it is available (mapPages). Neither holds a
// pointer, so the collector has nothing to scan in them; kept on the heap,
// they would still count towards the heap's size, and in a small server
// (a live heap under the collector's minimum goal of 4 MiB) every byte the
// store keeps for ten minutes is a byte less of room for the garbage of
// requests before the next collection: a server's collections, and so its
// CPU per request, would rise with the nonces it holds. Outside the heap
// they cost the same bytes of memory and no collections.
//
// Regions are mapped a page at a time and returned as soon as the store
// lets go of them (a chunk of claims emptied, an index grown or rebuilt);
// those a store still holds when it is collected are returned then (a
// cleanup of the store, [outside.release]). Where memory cannot be mapped,
// or a region would be smaller than a page, it comes from the heap as
// before. A nil *outside allocates from the heap.
type outside struct {
	mu   sync.Mutex
	held map[unsafe.Pointer][]byte // the regions mapped, by their start
}

// newOutside returns the allocator of a store; the store's cleanup returns
// its regions (see [Memory.initLocked]).
func newOutside() *outside { return &outside{held: make(map[unsafe.Pointer][]byte)} }

// alloc returns n zeroed bytes outside the heap, page-aligned, or nil when
// the heap must do (no mapping here, a region smaller than a page, or a
// mapping refused).
func (o *outside) alloc(n int) unsafe.Pointer {
	if o == nil || n < pageSize {
		return nil
	}
	b := mapPages(n)
	if b == nil {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	o.mu.Lock()
	o.held[p] = b
	o.mu.Unlock()
	return p
}

// free returns the region starting at p if it is one of o's (memory from the
// heap is left to the collector).
func (o *outside) free(p unsafe.Pointer) {
	if o == nil || p == nil {
		return
	}
	o.mu.Lock()
	b, ok := o.held[p]
	delete(o.held, p)
	o.mu.Unlock()
	if ok {
		unmapPages(b)
	}
}

// release returns every region o holds: the store they belonged to is gone.
func (o *outside) release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, b := range o.held {
		unmapPages(b)
		delete(o.held, p)
	}
}

// mapped is the number of bytes o holds outside the heap.
func (o *outside) mapped() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, b := range o.held {
		n += len(b)
	}
	return n
}

// pageSize is the smallest region worth mapping: a page, on the systems
// this runs on (a mapping takes whole pages).
const pageSize = 4096

// newChunk returns an empty chunk of claims.
func (o *outside) newChunk() *claimChunk {
	if p := o.alloc(int(unsafe.Sizeof(claimChunk{}))); p != nil {
		return (*claimChunk)(p)
	}
	return new(claimChunk)
}

// freeChunk returns a chunk no longer used.
func (o *outside) freeChunk(c *claimChunk) {
	if c != nil {
		o.free(unsafe.Pointer(c))
	}
}

// newSlots returns the zeroed arrays of an index of size slots.
func (o *outside) newSlots(size int) ([]uint32, []uint8) {
	if p := o.alloc(5 * size); p != nil {
		seq := unsafe.Slice((*uint32)(p), size)
		tag := unsafe.Slice((*uint8)(unsafe.Add(p, 4*size)), size)
		return seq, tag
	}
	return make([]uint32, size), make([]uint8, size)
}

// freeSlots returns the arrays of an index no longer used.
func (o *outside) freeSlots(seq []uint32) {
	if len(seq) > 0 {
		o.free(unsafe.Pointer(unsafe.SliceData(seq)))
	}
}
