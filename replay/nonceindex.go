package replay

import "hash/maphash"

// nonceIndex finds the claim of each nonce a [Memory] store holds: an
// open-addressing table (linear probing) of the claims' sequence numbers,
// whose keys it reads from the claim order rather than keeping them a
// second time. A slot takes five bytes (the number, and a tag: 0 for an
// empty slot, else 7 bits of the key's hash), and the table is kept at most
// three quarters full: about 9 bytes a nonce, where a Go map of the keys to
// their numbers took about 32. The hash is keyed by a random seed of the
// store, so that nonces chosen by a caller cannot pile up in one run of
// slots.
//
// Every method that takes a claimQueue reads the keys of the claims the
// index holds from it: each must be in it.
type nonceIndex struct {
	seq  []uint32 // a claim's sequence number, where tag is not 0
	tag  []uint8
	n    int // slots in use
	seed maphash.Seed
	mem  *outside // where the slots are kept (nil: the heap)
}

// minIndexSlots is the size of a table when it is first made.
const minIndexSlots = 16

func (x *nonceIndex) hash(k memKey) uint64 { return maphash.Comparable(x.seed, k) }

func tagOf(h uint64) uint8 { return 0x80 | uint8(h>>57) }

// len is the number of nonces indexed.
func (x *nonceIndex) len() int { return x.n }

// find returns the slot of k, or -1 when k is not indexed.
func (x *nonceIndex) find(k memKey, q *claimQueue) int {
	if x.n == 0 {
		return -1
	}
	h := x.hash(k)
	mask := len(x.tag) - 1
	t := tagOf(h)
	for i := int(h) & mask; x.tag[i] != 0; i = (i + 1) & mask {
		if x.tag[i] == t && q.at(x.seq[i]).key == k {
			return i
		}
	}
	return -1
}

// insert indexes k, which is not indexed, as claim seq (in q already).
func (x *nonceIndex) insert(k memKey, seq uint32, q *claimQueue) {
	if (x.n+1)*4 > len(x.tag)*3 {
		x.resize(max(minIndexSlots, 2*len(x.tag)), q)
	}
	x.place(x.hash(k), seq)
	x.n++
}

// place puts seq, whose key hashes to h, in the first free slot from its
// own; there is one.
func (x *nonceIndex) place(h uint64, seq uint32) {
	mask := len(x.tag) - 1
	i := int(h) & mask
	for x.tag[i] != 0 {
		i = (i + 1) & mask
	}
	x.seq[i], x.tag[i] = seq, tagOf(h)
}

// remove forgets the nonce in slot i, moving back the slots after it that
// would otherwise no longer be found from their own.
func (x *nonceIndex) remove(i int, q *claimQueue) {
	mask := len(x.tag) - 1
	for j := (i + 1) & mask; x.tag[j] != 0; j = (j + 1) & mask {
		home := int(x.hash(q.at(x.seq[j]).key)) & mask
		// The nonce in slot j may fill slot i when i lies on its way from
		// home to j.
		if (j-home)&mask >= (j-i)&mask {
			x.seq[i], x.tag[i] = x.seq[j], x.tag[j]
			i = j
		}
	}
	x.tag[i] = 0
	x.n--
}

// resize makes the table size slots (a power of two, more than n) and
// indexes again the claims it held.
func (x *nonceIndex) resize(size int, q *claimQueue) {
	oldSeq, oldTag := x.seq, x.tag
	x.seq, x.tag = x.mem.newSlots(size)
	for i, t := range oldTag {
		if t != 0 {
			x.place(x.hash(q.at(oldSeq[i]).key), oldSeq[i])
		}
	}
	x.mem.freeSlots(oldSeq)
}

// rebuild indexes every claim in q, and nothing else, in a table sized for
// them (at most half full).
func (x *nonceIndex) rebuild(q *claimQueue) {
	size := minIndexSlots
	for size < 2*q.len() {
		size *= 2
	}
	x.mem.freeSlots(x.seq)
	x.seq, x.tag = x.mem.newSlots(size)
	x.n = 0
	q.each(func(c claimed, seq uint32) {
		x.place(x.hash(c.key), seq)
		x.n++
	})
}
