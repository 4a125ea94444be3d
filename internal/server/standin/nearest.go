package standin

import (
	"hash/maphash"
	"slices"
)

// nearestIndex finds the recorded request nearest to one the recording
// does not hold without reading every recorded one again: the leaves of
// each distinct recorded params of a method (see leaves), hashed, with the
// params that have each. Built once a method, at its first unmatched
// request; it holds a few bytes a leaf, not the params.
type nearestIndex struct {
	keys     []*Exchange        // the first exchange of each distinct params, in order
	size     []int              // the leaves of each
	postings map[uint64][]int32 // a leaf's hash: the params that have it
}

// index returns the nearest index of method, building it the first time.
// Called with s.mu held.
func (s *Standin) index(method string) *nearestIndex {
	if ix := s.nearest[method]; ix != nil {
		return ix
	}
	ix := &nearestIndex{postings: map[uint64][]int32{}}
	seen := map[string]bool{}
	for _, x := range s.script.Of(method) {
		if seen[x.Key] {
			continue
		}
		seen[x.Key] = true
		k := int32(len(ix.keys))
		ls := leaves(x.Key, maxLeaves)
		ix.keys = append(ix.keys, x)
		ix.size = append(ix.size, len(ls))
		for l := range ls {
			h := maphash.String(s.seed, l)
			ix.postings[h] = append(ix.postings[h], k)
		}
	}
	s.nearest[method] = ix
	return ix
}

// nearestOf is the recorded exchange whose params differ least from key's
// (the leaves one has and the other has not), of those allow takes (all
// when nil); the earliest of equals. nil when allow takes none.
func (s *Standin) nearestOf(method, key string, allow func(*Exchange) bool) *Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.index(method)
	got := leaves(key, maxLeaves)
	shared := make([]int32, len(ix.keys))
	hashes := make([]uint64, 0, len(got))
	for l := range got {
		hashes = append(hashes, maphash.String(s.seed, l))
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	for _, h := range hashes {
		for _, k := range ix.postings[h] {
			shared[k]++
		}
	}
	var best *Exchange
	bestD := -1
	for k, x := range ix.keys {
		if allow != nil && !allow(x) {
			continue
		}
		if d := len(hashes) + ix.size[k] - 2*int(shared[k]); bestD < 0 || d < bestD {
			best, bestD = x, d
		}
	}
	return best
}
