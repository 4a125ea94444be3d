package standin

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/rogpeppe/go-internal/txtar"
)

// recordingsInTestdata are every recording the project keeps: the .jsonl
// files of its test data and examples, and those in the transcripts'
// archives, by name.
func recordingsInTestdata(t *testing.T) map[string][]byte {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
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

// readAsScript reads a recording as `mcp-tester script` does: whole and
// strictly, then as a conversation.
func readAsScript(data []byte) (*conversation.Conversation, error) {
	rec, err := recording.Read(bytes.NewReader(data), recording.ReadOptions{})
	if err != nil {
		return nil, err
	}
	return conversation.Read(rec, conversation.Options{})
}

// readAsServe reads a recording as `mcp-tester serve` does: as a stream,
// keeping the script only.
func readAsServe(data []byte) (*Script, error) {
	rd, err := recording.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return Read(rd, 0)
}

// refusedByScriptOnly are the recordings `script` refuses on purpose
// while `serve` serves them, and why: no pairing of `script` to compare.
var refusedByScriptOnly = map[string]string{
	// A protocol version the tester does not speak: a script of it could
	// not be replayed, while a stand-in serves what its messages allow,
	// with a warning.
	"cmd/mcp-tester/testdata/script/script_bad_input.txtar:future.jsonl": "protocol 2099-01-01",
}

// `script REC` (a conversation) and `serve REC` (a stand-in's script) read
// every recording of the test data with one reader (recording.CallReader)
// and one pairing rule: each request of a call is taken as the same call's
// first request or next round, and each question as the same call's (a
// question related to a task as the task's call's, task-2025-asked.jsonl),
// by both. Every recording is read by
// both, as the commands read it (script whole, serve as a stream): one
// both refuse is refused at the same line; one only `script` refuses is
// listed in refusedByScriptOnly with why. The one place their models
// differ on purpose is a retry after the URL error -32042 of 2025-11-25: a
// script replays it as the call's next round, a stand-in serves the error
// and then the retry as a request of its own (with the questions asked
// during it).
func TestScriptAndServePairEveryRequestTheSameWay(t *testing.T) {
	recs := recordingsInTestdata(t)
	for _, must := range []string{"internal/server/standin/testdata/pairing-by-state.jsonl", "internal/server/standin/testdata/asked-during-two-calls.jsonl",
		"internal/server/standin/testdata/rounds-interleave.jsonl", "internal/server/standin/testdata/task-2025-asked.jsonl",
		"internal/server/standin/testdata/task-ext-asked.jsonl"} {
		if recs[must] == nil {
			t.Fatalf("%s is not among the recordings found: %v", must, slices.Sorted(maps.Keys(recs)))
		}
	}
	// A transcript's recording cut short is cut by the transcript (its
	// archive ends every file with a newline): read it as it is served.
	for name, data := range recs {
		if strings.HasSuffix(name, ":cut.jsonl") {
			recs[name+" (as cut)"] = bytes.TrimSuffix(data, []byte("\n"))
		}
	}
	compared, refused := 0, 0
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		conv, cerr := readAsScript(recs[name])
		sc, serr := readAsServe(recs[name])
		if why, ok := refusedByScriptOnly[name]; ok {
			if cerr == nil || serr != nil {
				t.Errorf("%s (%s): script should refuse it and serve serve it: %v / %v", name, why, cerr, serr)
			}
			continue
		}
		if cerr != nil || serr != nil {
			var ce, se *recording.Error
			if !errors.As(cerr, &ce) || !errors.As(serr, &se) || ce.Line != se.Line {
				t.Errorf("%s: script and serve do not refuse it alike: %v / %v", name, cerr, serr)
			}
			refused++
			continue
		}
		compared++
		comparePairings(t, name, scriptPairing(conv), servePairing(sc))
	}
	if compared+refused+len(refusedByScriptOnly) != len(recs) {
		t.Errorf("%d compared, %d refused by both, %d by script only, of %d", compared, refused, len(refusedByScriptOnly), len(recs))
	}
	t.Logf("%d of %d recordings compared, %d refused by both at the same line, %d by script only", compared, len(recs), refused, len(refusedByScriptOnly))
}

// pairing is how a reader paired a recording: the line of the call each
// request of a call is one of, and each question is asked during, by line.
type pairing struct {
	call, asked map[int]int
	// retries are the requests that retry a call after the URL error
	// -32042 (script only).
	retries map[int]bool
}

// scriptPairing is how `script` paired a recording.
func scriptPairing(conv *conversation.Conversation) pairing {
	p := pairing{call: map[int]int{}, asked: map[int]int{}, retries: map[int]bool{}}
	for _, c := range conv.Calls {
		if !isCall(c.Method) {
			continue
		}
		for _, l := range c.RoundLines {
			p.call[l] = c.Line
			p.retries[l] = slices.ContainsFunc(c.Questions, func(q *conversation.Question) bool { return q.Via == exchange.ViaURLError && q.Line < l })
		}
		for _, q := range c.Questions {
			if q.Via != exchange.ViaURLError && q.Via != exchange.ViaTask {
				p.asked[q.Line] = c.Line
			}
		}
	}
	return p
}

// servePairing is how `serve` paired a recording.
func servePairing(sc *Script) pairing {
	p := pairing{call: map[int]int{}, asked: map[int]int{}}
	for _, x := range sc.Exchanges {
		if !isCall(x.Method) {
			continue
		}
		for _, l := range x.RoundLines {
			p.call[l] = x.Line
		}
		if x.ExtTask != nil {
			continue // its questions come with tasks/get, as script leaves them out too
		}
		for _, r := range x.Rounds {
			for _, q := range r.Questions {
				p.asked[q.Line] = x.Line
			}
		}
	}
	return p
}

// comparePairings fails the test where `script` and `serve` paired a
// request or a question of the recording name differently. A question
// `serve` does not ask (outside any call) may be missing from its pairing.
func comparePairings(t *testing.T, name string, script, serve pairing) {
	t.Helper()
	for l, want := range script.call {
		got, ok := serve.call[l]
		switch {
		case script.retries[l]:
			if !ok || got != l {
				t.Errorf("%s: line %d, a retry after the URL error, is not a request of its own to the stand-in (%d, %v)", name, l, got, ok)
			}
		case !ok || got != want:
			t.Errorf("%s: line %d is a request of the call at line %d to `script`, of the one at line %d to `serve` (%v)", name, l, want, got, ok)
		}
	}
	for l := range serve.call {
		if _, ok := script.call[l]; !ok {
			t.Errorf("%s: line %d is a call to `serve`, not to `script`", name, l)
		}
	}
	// A question asked during a retry after the URL error is the retry's
	// to `serve`, the call's the retry continues to `script`.
	same := func(got, want int) bool { return got == want || (script.retries[got] && script.call[got] == want) }
	for l, want := range script.asked {
		if got, ok := serve.asked[l]; ok && !same(got, want) {
			t.Errorf("%s: the question at line %d is the call at line %d's to `script`, the one at line %d's to `serve`", name, l, want, got)
		}
	}
	for l, got := range serve.asked {
		if want, ok := script.asked[l]; !ok || !same(got, want) {
			t.Errorf("%s: the question at line %d is the call at line %d's to `serve`, the one at line %d's to `script` (%v)", name, l, got, want, ok)
		}
	}
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

// Two calls of the same tool, with the same arguments, whose rounds
// interleave; the client answers the second's second round with every
// answer it gave the call (keys the round did not ask). The state each
// request sends back names its call, to `script` and to `serve` alike,
// whatever keys it answers: as the recording shows it, and as a recording
// that hides states shows it (a note of its length).
func TestInterleavedRoundsGoToTheCallWhoseStateTheySendBack(t *testing.T) {
	for _, file := range []string{"rounds-interleave.jsonl", "rounds-interleave-hidden.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		conv, err := readAsScript(data)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := readAsServe(data)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]int{{2, 10}, {3, 6, 8}}
		if len(conv.Calls) != 2 || !slices.Equal(conv.Calls[0].RoundLines, want[0]) || !slices.Equal(conv.Calls[1].RoundLines, want[1]) {
			for _, c := range conv.Calls {
				t.Errorf("%s: script: a call with rounds at %v", file, c.RoundLines)
			}
		}
		if len(sc.Exchanges) != 2 || !slices.Equal(sc.Exchanges[0].RoundLines, want[0]) || !slices.Equal(sc.Exchanges[1].RoundLines, want[1]) {
			for _, x := range sc.Exchanges {
				t.Errorf("%s: serve: an exchange with rounds at %v", file, x.RoundLines)
			}
		}
		if len(conv.Notes) != 0 || len(sc.Warnings) != 0 {
			t.Errorf("%s: notes %v, warnings %q", file, conv.Notes, sc.Warnings)
		}
	}
}
