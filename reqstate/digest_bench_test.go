package reqstate

import (
	"testing"

	"github.com/askback/askback/internal/benchratio"
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
