package reqstate_test

import (
	"context"
	"testing"

	"github.com/askback/askback/reqstate"
)

// Issuing and opening a state allocates little besides what the caller keeps:
// the state, the two argument digests, the payload's own values and the
// nonce the replay store records; the buffers of the codec are reused
// (make bench: allocs/op, 6 signed or sealed, 7 sealed single use).
func BenchmarkIssueOpenAllocations(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		mode reqstate.Mode
		opts *reqstate.IssueOptions
	}{
		{"signed", reqstate.Signed, nil},
		{"sealed", reqstate.Sealed, nil},
		{"sealed single use", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := newFixture(b, tc.mode)
			r1 := toolReq("alice", "deploy", args, "")
			r2 := toolReq("alice", "deploy", args, "")
			var payload any = want
			b.ReportAllocs()
			for b.Loop() {
				s, err := f.codec.Issue(r1, payload, tc.opts)
				if err != nil {
					b.Fatal(err)
				}
				r2.Params.RequestState = s
				if _, err := reqstate.Open[deployState](ctx, f.codec, r2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
