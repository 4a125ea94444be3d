package replay

import "testing"

// The queue gives claims back in the order they were added, across chunk
// boundaries, after emptying and after keep, its chunks on the heap or
// outside it; outside, it holds no more pages than its chunks.
func TestClaimQueueOrder(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testClaimQueueOrder(t, nil) })
	t.Run("outside", func(t *testing.T) {
		o := newOutside()
		testClaimQueueOrder(t, o)
		if o.mapped() != 0 && !canMap() {
			t.Fatalf("%d bytes mapped where nothing can be", o.mapped())
		}
	})
}

func testClaimQueueOrder(t *testing.T, mem *outside) {
	q := claimQueue{mem: mem}
	held := func(when string) {
		t.Helper()
		if mem == nil || !canMap() {
			return
		}
		n := len(q.chunks)
		if q.spare != nil {
			n++
		}
		if got, want := mem.mapped(), n*claimChunkBytes; got != want {
			t.Fatalf("%s: %d bytes mapped for %d chunks (%d bytes)", when, got, n, want)
		}
	}
	next, want := int64(0), int64(0)
	push := func(n int) {
		for range n {
			q.push(claimed{expiry: next})
			next++
		}
	}
	pop := func(n int) {
		for range n {
			if got := q.front().expiry; got != want {
				t.Fatalf("front = %d, want %d", got, want)
			}
			q.pop()
			want++
		}
	}
	push(3*claimChunkLen + 5)
	held("pushed")
	pop(claimChunkLen + 7)
	held("popped")
	push(claimChunkLen)
	held("pushed again")
	if got, w := q.len(), int(next-want); got != w {
		t.Fatalf("len = %d, want %d", got, w)
	}
	pop(q.len())
	if q.len() != 0 || len(q.chunks) != 0 || q.spare == nil {
		t.Fatalf("emptied queue: len %d, %d chunks, spare %v", q.len(), len(q.chunks), q.spare != nil)
	}
	held("emptied")
	push(10)
	pop(10)

	// keep drops the odd ones and keeps the order of the rest.
	start := next
	push(2*claimChunkLen + 3)
	pop(1) // start from inside the first chunk
	first := q.first
	q.keep(func(c claimed, seq uint32) bool {
		if c != q.at(seq) {
			t.Fatalf("keep: claim %d is %v, at(%d) %v", seq, c, seq, q.at(seq))
		}
		return c.expiry%2 == 0
	})
	held("kept")
	// Numbered anew from the same first number, each found by its number.
	if q.first != first {
		t.Fatalf("after keep: first number %d, want %d", q.first, first)
	}
	q.each(func(c claimed, seq uint32) {
		if c != q.at(seq) || seq-first >= uint32(q.len()) {
			t.Fatalf("after keep: claim %d is %v, at(%d) %v", seq, c, seq, q.at(seq))
		}
	})
	var got []int64
	for q.len() > 0 {
		got = append(got, q.front().expiry)
		q.pop()
	}
	w := start + 2
	if start%2 == 1 {
		w = start + 1
	}
	for _, e := range got {
		if e != w {
			t.Fatalf("after keep: got %d, want %d", e, w)
		}
		w += 2
	}
	if w < next-1 {
		t.Fatalf("after keep: stopped at %d of %d", w, next)
	}
	held("emptied after keep")
}

// Each claim keeps its number from push to pop, across chunks and across
// the wrap of the numbers, and is found by it.
func TestClaimQueueNumbers(t *testing.T) {
	q := claimQueue{first: ^uint32(0) - claimChunkLen} // the numbers wrap on the way
	var seqs []uint32
	for i := range 3 * claimChunkLen {
		seqs = append(seqs, q.push(claimed{expiry: int64(i)}))
		if i > 0 && seqs[i] != seqs[i-1]+1 {
			t.Fatalf("claim %d numbered %d after %d", i, seqs[i], seqs[i-1])
		}
	}
	for i := range claimChunkLen + 3 {
		if q.first != seqs[i] {
			t.Fatalf("front numbered %d, pushed as %d", q.first, seqs[i])
		}
		q.pop()
	}
	for i := claimChunkLen + 3; i < len(seqs); i++ {
		if got := q.at(seqs[i]).expiry; got != int64(i) {
			t.Fatalf("at(%d) = claim %d, want %d", seqs[i], got, i)
		}
	}
}

// A chunk emptied at the front is used again at the back: a store whose
// claims come and go holds as many chunks as its live claims need.
func TestClaimQueueReusesChunks(t *testing.T) {
	var q claimQueue
	for i := range 50 * claimChunkLen {
		q.push(claimed{expiry: int64(i)})
		if q.len() > claimChunkLen {
			q.pop()
		}
	}
	if len(q.chunks) > 2 {
		t.Fatalf("%d chunks for %d live claims", len(q.chunks), q.len())
	}
	// Bounded growth in steady state: claims that come and go leave the
	// chunks as they were (what a claim allocates is
	// BenchmarkClaimQueueSteadyState's figure).
	for range 100 * claimChunkLen {
		q.push(claimed{})
		q.pop()
	}
	if len(q.chunks) > 2 {
		t.Fatalf("%d chunks for %d live claims after claims came and went", len(q.chunks), q.len())
	}
}

// BenchmarkClaimQueueSteadyState: a claim pushed and popped in a queue
// whose chunks are already there (make bench: allocs/op, none expected).
func BenchmarkClaimQueueSteadyState(b *testing.B) {
	var q claimQueue
	for range 2 * claimChunkLen {
		q.push(claimed{})
		if q.len() > claimChunkLen {
			q.pop()
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		q.push(claimed{})
		q.pop()
	}
}
