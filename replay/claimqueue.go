package replay

// claimQueue holds claims in the order they were made, in fixed-size
// chunks: adding one never copies the claims already held (a single growing
// slice would copy all of them, under the store's lock, each time it
// doubled), and chunks emptied at the front are reused at the back.
type claimQueue struct {
	chunks []*claimChunk // chunks[0][head:] … chunks[len-1][:tail]
	head   int           // the first claim in chunks[0]
	tail   int           // claims in the last chunk
	n      int
	spare  *claimChunk // one emptied chunk kept for reuse
}

// claimChunkLen is the claims per chunk (32 KiB of them).
const claimChunkLen = 1024

type claimChunk [claimChunkLen]claimed

func (q *claimQueue) len() int { return q.n }

// push adds c at the back.
func (q *claimQueue) push(c claimed) {
	if len(q.chunks) == 0 || q.tail == claimChunkLen {
		ch := q.spare
		q.spare = nil
		if ch == nil {
			ch = new(claimChunk)
		}
		q.chunks = append(q.chunks, ch)
		q.tail = 0
	}
	q.chunks[len(q.chunks)-1][q.tail] = c
	q.tail++
	q.n++
}

// front returns the oldest claim; the queue must not be empty.
func (q *claimQueue) front() claimed { return q.chunks[0][q.head] }

// pop removes the oldest claim; the queue must not be empty.
func (q *claimQueue) pop() {
	q.head++
	q.n--
	if q.n == 0 {
		// Keep one chunk to start again from.
		q.spare, q.chunks, q.head, q.tail = q.chunks[0], q.chunks[:0], 0, 0
		return
	}
	if q.head == claimChunkLen {
		q.spare = q.chunks[0]
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// keep removes, in one pass, every claim for which live is false, keeping
// the order of the others.
func (q *claimQueue) keep(live func(claimed) bool) {
	var out claimQueue
	out.spare = q.spare
	for i, ch := range q.chunks {
		from, to := 0, claimChunkLen
		if i == 0 {
			from = q.head
		}
		if i == len(q.chunks)-1 {
			to = q.tail
		}
		for _, c := range ch[from:to] {
			if live(c) {
				out.push(c)
			}
		}
	}
	*q = out
}
