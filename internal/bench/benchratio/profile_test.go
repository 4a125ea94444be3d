package benchratio

import (
	"math"
	"testing"
)

// A profile's samples count in the first part whose test their stack
// passes, labels and headers are no frames, and the heaviest functions of
// the last part are named.
func TestSharesOfTraces(t *testing.T) {
	out := []byte(`File: x.test
Type: cpu
Duration: 1s, Total samples = 100ms (10%)
-----------+-------------------------------------------------------
      40ms   runtime.scanobject
             runtime.gcDrain
             runtime.gcBgMarkWorker
-----------+-------------------------------------------------------
       run:  script
      30ms   runtime.memmove
             github.com/modelcontextprotocol/go-sdk/internal/json.Unmarshal
             github.com/askback/askback/internal/script.run
-----------+-------------------------------------------------------
      20ms   strings.Index
             github.com/askback/askback/internal/script.assertContains
             github.com/modelcontextprotocol/go-sdk/mcp.call
-----------+-------------------------------------------------------
      10ms   runtime.futex
             runtime.schedule
-----------+-------------------------------------------------------
`)
	owners := []string{"github.com/askback/askback/", "github.com/modelcontextprotocol/go-sdk/"}
	parts := []Part{GC, SDKJSON,
		{Name: "ours", In: Owner(owners, "github.com/askback/askback/")},
		{Name: "sdk", In: Owner(owners, "github.com/modelcontextprotocol/go-sdk/")},
		{Name: "rest", In: func([]string) bool { return true }},
	}
	shares, total, top := sharesOf(out, parts)
	if total.Milliseconds() != 100 {
		t.Fatalf("total %v, want 100ms", total)
	}
	want := map[string]float64{"gc": 40, "sdk-json": 30, "ours": 20, "sdk": 0, "rest": 10}
	for k, v := range want {
		if math.Abs(shares[k]-v) > 1e-9 {
			t.Errorf("%s: %.1f %%, want %.1f %%", k, shares[k], v)
		}
	}
	if top != "runtime.futex 10.0 %" {
		t.Errorf("heaviest of rest: %q", top)
	}
	if _, total, _ := sharesOf([]byte("File: x\n"), parts); total != 0 {
		t.Errorf("a profile without samples: total %v", total)
	}
}
