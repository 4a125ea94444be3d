package reqstate_test

import (
	"context"
	"testing"

	"github.com/askback/askback/reqstate"
)

// Issuing and opening a state allocates little besides what the caller keeps:
// the state, the two argument digests, the payload's own values and the
// nonce the replay store records. The buffers of the codec are reused.
func TestIssueOpenAllocations(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		mode reqstate.Mode
		opts *reqstate.IssueOptions
		max  float64
	}{
		{"signed", reqstate.Signed, nil, 7},
		{"sealed", reqstate.Sealed, nil, 7},
		{"sealed single use", reqstate.Sealed, &reqstate.IssueOptions{SingleUse: true}, 8},
	} {
		f := newFixture(t, tc.mode)
		r1 := toolReq("alice", "deploy", args, "")
		r2 := toolReq("alice", "deploy", args, "")
		var payload any = want
		got := testing.AllocsPerRun(200, func() {
			s, err := f.codec.Issue(r1, payload, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			r2.Params.RequestState = s
			if _, err := reqstate.Open[deployState](ctx, f.codec, r2); err != nil {
				t.Fatal(err)
			}
		})
		if got > tc.max {
			t.Errorf("%s: Issue+Open allocates %v times, want at most %v", tc.name, got, tc.max)
		}
	}
}
