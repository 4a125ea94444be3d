package replay

import (
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// The index finds every nonce it holds, and none other, whatever the order
// in which nonces come and go: removals from the middle of runs of slots
// (which move the slots after them back), tables grown while full of such
// runs, rebuilt tables. A model map says what is held.
func TestNonceIndexAgreesWithAMap(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var q claimQueue
		x := nonceIndex{seed: maphash.MakeSeed()}
		model := map[memKey]uint32{}
		var held []memKey
		key := func(i int) memKey {
			// Nonces alike but for a byte or two, as a caller may choose them.
			return memKeyOf(string(rune('a'+i%7)) + string(rune('a'+i/7%11)) + "-nonce")
		}
		next := 0
		for step := range 3000 {
			switch op := rng.IntN(10); {
			case op < 6 && next < 77: // a new nonce
				k := key(next)
				next++
				seq := q.push(claimed{key: k})
				x.insert(k, seq, &q)
				model[k] = seq
				held = append(held, k)
			case op < 9 && len(held) > 0: // any nonce held goes
				j := rng.IntN(len(held))
				k := held[j]
				i := x.find(k, &q)
				if i < 0 {
					t.Fatalf("seed %d step %d: a nonce held is not found", seed, step)
				}
				x.remove(i, &q)
				delete(model, k)
				held[j] = held[len(held)-1]
				held = held[:len(held)-1]
			case op == 9: // every nonce of the model in a table made anew
				q = claimQueue{}
				for _, k := range held {
					model[k] = q.push(claimed{key: k})
				}
				x.rebuild(&q)
			}
			if x.len() != len(model) {
				t.Fatalf("seed %d step %d: the index counts %d nonces, the model %d", seed, step, x.len(), len(model))
			}
			if x.n*4 > len(x.tag)*3 {
				t.Fatalf("seed %d step %d: %d nonces in %d slots", seed, step, x.n, len(x.tag))
			}
			for i := range next + 5 {
				k := key(i)
				seq, want := model[k]
				j := x.find(k, &q)
				if (j >= 0) != want || want && x.seq[j] != seq {
					t.Fatalf("seed %d step %d: nonce %d found in slot %d, held %v (claim %d)", seed, step, i, j, want, seq)
				}
			}
			if next == 77 && len(held) == 0 {
				next = 0
			}
		}
	}
}
