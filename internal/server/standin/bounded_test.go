package standin

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A client's answer of megabytes is kept cut, once (the detail does not
// repeat it), in the report and on the log alike.
func TestProblemValuesBounded(t *testing.T) {
	var log bytes.Buffer
	rp := &reporter{log: &log}
	big := `{"action":"accept","content":{"name":"` + strings.Repeat("A", 4<<20) + `"}}`
	v := compare(json.RawMessage(`{"action":"accept","content":{"name":"Ann"}}`), json.RawMessage(big))
	for range 3 {
		rp.problem(Problem{Kind: ProblemAnswer, Request: "tools/call " + strings.Repeat("t", 1<<20), Recorded: v.recorded, Got: v.got, Detail: v.detail})
	}
	r := rp.snapshot()
	b, _ := json.Marshal(r)
	if len(b) > 3*4*(MaxValue+64) {
		t.Errorf("the report of 3 problems is %d bytes", len(b))
	}
	p := r.Problems[0]
	var got string
	if err := json.Unmarshal(p.Got, &got); err != nil || !strings.HasSuffix(got, " more bytes)") {
		t.Errorf("got: %.100s… (%v)", p.Got, err)
	}
	if strings.Contains(p.Detail, "AAAA") {
		t.Errorf("the detail repeats the answer: %.200s", p.Detail)
	}
	if log.Len() > 3*4*logValue+1000 {
		t.Errorf("the log is %d bytes", log.Len())
	}
}
