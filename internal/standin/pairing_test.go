package standin

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/conversation"
	"github.com/askback/askback/internal/exchange"
	"github.com/askback/askback/internal/recording"
	"github.com/rogpeppe/go-internal/txtar"
)

// recordingsInTestdata are every recording the project keeps: the .jsonl
// files of its test data and examples, and those in the transcripts'
// archives, by name.
func recordingsInTestdata(t *testing.T) map[string][]byte {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	header := []byte(`{"format":"` + recording.Format + `"`)
	out := map[string][]byte{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || strings.HasPrefix(name, ".") && path != root || name == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch filepath.Ext(path) {
		case ".jsonl":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.HasPrefix(b, header) {
				out[rel] = b
			}
		case ".txtar":
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if bytes.HasPrefix(f.Data, header) {
					out[rel+":"+f.Name] = f.Data
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// `script REC` (a conversation) and `serve REC` (a stand-in's script) read
// every recording of the test data with one pairing rule: each request of
// a call is taken as the same call's first request or next round, and
// each question as the same call's, by both. The one place their models
// differ on purpose is a retry after the URL error -32042 of 2025-11-25: a
// script replays it as the call's next round, a stand-in serves the error
// and then the retry as a request of its own.
func TestScriptAndServePairEveryRequestTheSameWay(t *testing.T) {
	recs := recordingsInTestdata(t)
	for _, must := range []string{"internal/standin/testdata/pairing-by-state.jsonl", "internal/standin/testdata/asked-during-two-calls.jsonl"} {
		if recs[must] == nil {
			t.Fatalf("%s is not among the recordings found: %v", must, slices.Sorted(maps.Keys(recs)))
		}
	}
	compared := 0
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		rec, err := recording.Read(bytes.NewReader(recs[name]), recording.ReadOptions{})
		if err != nil {
			continue // a transcript's recording that is refused on purpose
		}
		conv, cerr := conversation.Read(rec, conversation.Options{})
		sc, serr := Build(rec)
		if cerr != nil || serr != nil {
			continue // refused by one (a protocol a script cannot replay), or both
		}
		compared++
		scriptCall, scriptAsked := map[int]int{}, map[int]int{}
		retries := map[int]bool{}
		for _, c := range conv.Calls {
			if !isCall(c.Method) {
				continue
			}
			for _, l := range c.RoundLines {
				scriptCall[l] = c.Line
				for _, q := range c.Questions {
					if q.Via == exchange.ViaURLError && q.Line < l {
						retries[l] = true
					}
				}
			}
			for _, q := range c.Questions {
				if q.Via != exchange.ViaURLError && q.Via != exchange.ViaTask {
					scriptAsked[q.Line] = c.Line
				}
			}
		}
		serveCall, serveAsked := map[int]int{}, map[int]int{}
		for _, x := range sc.Exchanges {
			if !isCall(x.Method) {
				continue
			}
			for _, l := range x.RoundLines {
				serveCall[l] = x.Line
			}
			for _, r := range x.Rounds {
				for _, q := range r.Questions {
					serveAsked[q.Line] = x.Line
				}
			}
		}
		for l, want := range scriptCall {
			got, ok := serveCall[l]
			switch {
			case retries[l]:
				if !ok || got != l {
					t.Errorf("%s: line %d, a retry after the URL error, is not a request of its own to the stand-in (%d, %v)", name, l, got, ok)
				}
			case !ok || got != want:
				t.Errorf("%s: line %d is a request of the call at line %d to `script`, of the one at line %d to `serve` (%v)", name, l, want, got, ok)
			}
		}
		for l := range serveCall {
			if _, ok := scriptCall[l]; !ok {
				t.Errorf("%s: line %d is a call to `serve`, not to `script`", name, l)
			}
		}
		for l, want := range scriptAsked {
			if got, ok := serveAsked[l]; ok && got != want {
				t.Errorf("%s: the question at line %d is the call at line %d's to `script`, the one at line %d's to `serve`", name, l, want, got)
			}
		}
		for l, got := range serveAsked {
			if want, ok := scriptAsked[l]; !ok || got != want {
				t.Errorf("%s: the question at line %d is the call at line %d's to `serve`, the one at line %d's to `script` (%v)", name, l, got, want, ok)
			}
		}
	}
	if compared < 8 {
		t.Errorf("only %d recordings compared", compared)
	}
	t.Logf("%d of %d recordings compared", compared, len(recs))
}

// A later round names its call by the requestState the call's round was
// issued with: of two calls of the same tool and arguments, both waiting
// for the same key, the one whose state comes back, whichever was first.
func TestALaterRoundIsTheCallWhoseStateItSendsBack(t *testing.T) {
	sc := load(t, "pairing-by-state.jsonl")
	if len(sc.Exchanges) != 2 {
		t.Fatalf("%d exchanges", len(sc.Exchanges))
	}
	first, second := sc.Exchanges[0], sc.Exchanges[1]
	if !slices.Equal(first.RoundLines, []int{2, 8}) || !slices.Equal(second.RoundLines, []int{3, 6}) {
		t.Errorf("rounds: first %v, second %v", first.RoundLines, second.RoundLines)
	}
	if a := string(second.Rounds[0].Questions[0].Answer); !strings.Contains(a, "staging") {
		t.Errorf("the second's answer: %s", a)
	}
	if r := string(first.Result); !strings.Contains(r, "production") {
		t.Errorf("the first's result: %s", r)
	}
}
