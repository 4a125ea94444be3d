package replay

// claimQueue holds claims in the order they were made, in fixed-size
// chunks: adding one never copies the claims already held (a single growing
// slice would copy all of them, under the store's lock, each time it
// doubled), and chunks emptied at the front are reused at the back. Each
// claim has a sequence number, one more than the claim before it (modulo
// 2^32), by which it is found again ([claimQueue.at]).
type claimQueue struct {
	chunks []*claimChunk // chunks[0][head:] … chunks[len-1][:tail]
	head   int           // the first claim in chunks[0]
	tail   int           // claims in the last chunk
	n      int
	first  uint32      // the sequence number of the first claim
	spare  *claimChunk // one emptied chunk kept for reuse
	mem    *outside    // where chunks come from (nil: the heap)
}

// claimChunkLen is the claims per chunk (32 KiB of them).
const claimChunkLen = 1024

type claimChunk [claimChunkLen]claimed

func (q *claimQueue) len() int { return q.n }

// push adds c at the back and returns its sequence number.
func (q *claimQueue) push(c claimed) uint32 {
	if len(q.chunks) == 0 || q.tail == claimChunkLen {
		ch := q.spare
		q.spare = nil
		if ch == nil {
			ch = q.mem.newChunk()
		}
		q.chunks = append(q.chunks, ch)
		q.tail = 0
	}
	q.chunks[len(q.chunks)-1][q.tail] = c
	q.tail++
	seq := q.first + uint32(q.n)
	q.n++
	return seq
}

// front returns the oldest claim; the queue must not be empty.
func (q *claimQueue) front() claimed { return q.chunks[0][q.head] }

// at returns the claim numbered seq, which must be in the queue.
func (q *claimQueue) at(seq uint32) claimed {
	i := q.head + int(seq-q.first)
	return q.chunks[i/claimChunkLen][i%claimChunkLen]
}

// pop removes the oldest claim; the queue must not be empty.
func (q *claimQueue) pop() {
	q.head++
	q.n--
	q.first++
	if q.n == 0 {
		// Keep one chunk to start again from.
		q.mem.freeChunk(q.spare)
		q.spare, q.chunks[0], q.chunks, q.head, q.tail = q.chunks[0], nil, q.chunks[:0], 0, 0
		return
	}
	if q.head == claimChunkLen {
		q.mem.freeChunk(q.spare)
		q.spare = q.chunks[0]
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// keep removes, in one pass, every claim for which live (given the claim
// and its sequence number) is false, keeping the order of the others; they
// are numbered anew from the first sequence number.
func (q *claimQueue) keep(live func(c claimed, seq uint32) bool) {
	out := claimQueue{spare: q.spare, first: q.first, mem: q.mem}
	seq := q.first
	q.each(func(c claimed, _ uint32) {
		if live(c, seq) {
			out.push(c)
		}
		seq++
	})
	for _, ch := range q.chunks {
		q.mem.freeChunk(ch)
	}
	*q = out
}

// each calls f with every claim and its sequence number, oldest first.
func (q *claimQueue) each(f func(c claimed, seq uint32)) {
	seq := q.first
	for i, ch := range q.chunks {
		from, to := 0, claimChunkLen
		if i == 0 {
			from = q.head
		}
		if i == len(q.chunks)-1 {
			to = q.tail
		}
		for _, c := range ch[from:to] {
			f(c, seq)
			seq++
		}
	}
}
