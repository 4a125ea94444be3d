package scan_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/askback/askback/internal/report/sarif/sariftest"
)

// corpusEntry is one attack of testdata/corpus: a catalog (or several
// servers' catalogs scanned together) and the rules it must fire, each
// with the highest severity its findings must reach.
type corpusEntry struct {
	About   string            `json:"about"`
	Fires   map[string]string `json:"fires"`
	Catalog json.RawMessage   `json:"catalog"`
	Servers json.RawMessage   `json:"servers"`
	// scanned are the servers of the file, as catalog.ReadFile reads
	// them.
	scanned []scan.Server
}

// servers returns what the entry scans.
func (e *corpusEntry) servers() []scan.Server { return e.scanned }

func loadCorpus(t *testing.T) map[string]*corpusEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	out := map[string]*corpusEntry{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := decodeEntry(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(e.Fires) == 0 || e.About == "" || (e.Catalog == nil) == (len(e.Servers) == 0) {
			t.Fatalf("%s: an entry says what it is about, the rules it fires, and a catalog or servers", f)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = e
	}
	return out
}

// decodeEntry reads one entry of the corpus, strictly, and its servers
// as catalog.ReadFile reads them.
func decodeEntry(b []byte) (*corpusEntry, error) {
	var e corpusEntry
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	named, err := catalog.ReadFile("corpus", b)
	if err != nil {
		return nil, err
	}
	for _, n := range named {
		e.scanned = append(e.scanned, scan.Server{Name: n.Name, Catalog: n.Listing})
	}
	return &e, nil
}

// Every attack of the corpus fires the rules it names, each at the
// severity it names, and every rule is fired by some entry.
func TestCorpusFiresEveryRule(t *testing.T) {
	corpus := loadCorpus(t)
	fired := map[string]bool{}
	names := make([]string, 0, len(corpus))
	for n := range corpus {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		e := corpus[name]
		t.Run(name, func(t *testing.T) {
			rep := scan.Scan(e.servers()...)
			highest := map[string]scan.Severity{}
			for _, f := range rep.Findings {
				if f.Severity > highest[f.Rule] {
					highest[f.Rule] = f.Severity
				}
			}
			for id, want := range e.Fires {
				if _, ok := ruleByID(id); !ok {
					t.Fatalf("the entry names %s, which is no rule", id)
				}
				wantSev, err := scan.ParseSeverity(want)
				if err != nil {
					t.Fatal(err)
				}
				if got := highest[id]; got != wantSev {
					t.Errorf("%s: highest severity %v, want %v\n%s", id, got, wantSev, findings(rep))
				}
				fired[id] = true
			}
		})
	}
	for _, r := range scan.Rules() {
		if !fired[r.ID] {
			t.Errorf("no corpus entry fires %s (%s)", r.ID, r.Name)
		}
	}
}

// findings lists a report's findings, one a line, for failure messages.
func findings(rep *scan.Report) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		b.WriteString("  " + f.Severity.String() + " " + f.Rule + " " + f.Path + ": " + f.Reason + "\n")
	}
	if b.Len() == 0 {
		return "  (no findings)"
	}
	return b.String()
}

// The SARIF of every corpus entry's scan is a valid SARIF 2.1.0 log,
// with every rule listed and each finding at its JSON path.
func TestCorpusSARIFValidates(t *testing.T) {
	corpus := loadCorpus(t)
	for name, e := range corpus {
		rep := scan.Scan(e.servers()...)
		run := rep.SARIF(sarif.Tool{Name: "mcp-tester", Version: "test"}, sarif.Anchor{File: "testdata/corpus/" + name + ".json"})
		if len(run.Results) != len(rep.Findings) || len(run.Rules) != len(scan.Rules()) {
			t.Fatalf("%s: %d results for %d findings, %d rules", name, len(run.Results), len(rep.Findings), len(run.Rules))
		}
		doc, err := (&sarif.Log{Runs: []*sarif.Run{run}}).Marshal()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sariftest.Validate(t, doc)
	}
}
