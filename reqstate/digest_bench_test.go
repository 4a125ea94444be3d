package reqstate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/internal/bench/benchratio"
)

// BenchmarkArgsDigest: ArgsDigest, its canonical form written by jsonscan's
// scanner in the pass that checks it, against the same digest made as it
// was before (formerArgsDigest: reqstate's own canonicalizer, with a fast
// check that took arguments already in canonical form as they are), taking
// turns on the same bytes.
func BenchmarkArgsDigest(b *testing.B) {
	for _, c := range []struct{ name, args string }{
		{"canonical", `{"service":"auth-service"}`},
		{"spaced-unsorted", `{ "version": "2.4.1", "service": "auth-service" }`},
		{"nested", `{"target":{"env":"staging","replicas":3,"canary":0.1},"services":["auth","billing"],"dry":false,"note":"roll out é"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			in := []byte(c.args)
			b.ReportAllocs()
			benchratio.Interleave(b, func() {
				if _, err := ArgsDigest(in); err != nil {
					b.Fatal(err)
				}
			}, func() {
				if _, err := formerArgsDigest(in); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkPayloadRead: the plan reading the typical payload back (its
// object read by jsonscan.Members), against the plan's reader as it was
// before (formerRead: its own loop over the bytes), taking turns.
func BenchmarkPayloadRead(b *testing.B) {
	type deploy struct {
		Service string `json:"service"`
		Version string `json:"version"`
		Replica int    `json:"replica,omitempty"`
		Dry     bool   `json:"dry"`
	}
	data, ok := appendPayload(nil, deploy{Service: "auth-service", Version: "2.4.1", Replica: 3})
	if !ok {
		b.Fatal("no plan")
	}
	p := planOf(reflect.TypeFor[deploy]())
	var v deploy
	rv := reflect.ValueOf(&v).Elem()
	b.ReportAllocs()
	benchratio.Interleave(b, func() {
		if !p.read(data, rv) {
			b.Fatal("not read")
		}
	}, func() {
		if !p.formerRead(data, rv) {
			b.Fatal("not read")
		}
	})
}

// BenchmarkDigestManyKeys: ArgsDigest of an object of 16,000 keys (a body
// of a few hundred kilobytes) against json.Valid over the same bytes,
// taking turns (x-baseline, CPU time): about 30 while the keys are
// checked in time linear in their number; checking them pairwise took
// thousands. make bench (section reqstate) runs it; BENCHMARKS.md gives
// the figure.
func BenchmarkDigestManyKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range 16000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"key%d":%d`, i, i)
	}
	sb.WriteByte('}')
	in := []byte(sb.String())
	benchratio.Interleave(b, func() {
		if _, err := ArgsDigest(in); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if !json.Valid(in) {
			b.Fatal("not JSON")
		}
	})
}
