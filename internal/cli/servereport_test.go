package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/standin"
)

// Many events at once write the live report once, then once more at the
// end of the interval, not once each: the work stays linear in the events.
func TestLiveReportWrittenAtMostEveryInterval(t *testing.T) {
	rec, err := recording.Open("../server/standin/testdata/deploy-2026.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rd, err := recording.NewReader(rec)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := standin.Read(rd, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := standin.New(sc, standin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	var due []func()
	f := &reportFile{path: filepath.Join(t.TempDir(), "r.json"), errOut: new(strings.Builder),
		now: func() time.Time { return now }, after: func(_ time.Duration, fn func()) { due = append(due, fn) }}
	for range 1000 {
		f.rewrite(s)
	}
	if f.writes != 1 || len(due) != 1 {
		t.Fatalf("1,000 events: %d writes, %d due; want 1 and 1", f.writes, len(due))
	}
	now = now.Add(reportInterval)
	due[0]()
	if f.writes != 2 {
		t.Errorf("at the end of the interval: %d writes, want 2", f.writes)
	}
	f.flush(s)
	if f.writes != 3 {
		t.Errorf("at the end: %d writes, want 3", f.writes)
	}
}
