package catalogdiff

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/catalog"
	"github.com/rogpeppe/go-internal/txtar"
)

// changePair is one case of testdata/changes: an old and a new catalog and
// the changes a reviewer expects, one "class rule path" a line.
type changePair struct {
	name     string
	old, new *catalog.Catalog
	want     []string
}

func loadPairs(t *testing.T) []changePair {
	t.Helper()
	files, err := filepath.Glob("testdata/changes/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var out []changePair
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := changePair{name: strings.TrimSuffix(filepath.Base(f), ".txtar")}
		for _, file := range a.Files {
			switch file.Name {
			case "old.json", "new.json":
				c, err := catalog.Parse(file.Data)
				if err != nil {
					t.Fatalf("%s: %s: %v", f, file.Name, err)
				}
				if file.Name == "old.json" {
					p.old = c
				} else {
					p.new = c
				}
			case "want":
				for _, l := range strings.Split(strings.TrimSpace(string(file.Data)), "\n") {
					if l = strings.TrimSpace(l); l != "" {
						p.want = append(p.want, l)
					}
				}
			}
		}
		if p.old == nil || p.new == nil {
			t.Fatalf("%s: needs old.json and new.json", f)
		}
		out = append(out, p)
	}
	return out
}

func lines(r *Report) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, fmt.Sprintf("%s %s %s", c.Class(), c.Rule.ID, c.Path))
	}
	return out
}

// Every change pair of testdata/changes is classified as a reviewer would:
// exactly the changes listed, each in its class and rule, at its path.
func TestChangePairs(t *testing.T) {
	pairs := loadPairs(t)
	if len(pairs) < 30 {
		t.Fatalf("%d change pairs in testdata/changes, want at least 30", len(pairs))
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			got := lines(Compare(p.old, p.new))
			want := slices.Clone(p.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("changes:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(want, "\n       "))
			}
			for _, w := range want {
				seen[strings.Fields(w)[0]] = true
			}
			// A catalog compared with itself has no change.
			if same := Compare(p.new, p.new); len(same.Changes) != 0 {
				t.Errorf("new against itself: %v", lines(same))
			}
		})
	}
	for _, c := range []string{"breaking", "review", "safe"} {
		if !seen[c] {
			t.Errorf("no change pair expects a %s change", c)
		}
	}
}

// The reverse of a change that only accepts more (safe for callers) is
// one that breaks them, and the reverse of a removal an addition.
func TestReverseOfSafeIsNotSafe(t *testing.T) {
	for _, p := range loadPairs(t) {
		fwd := Compare(p.old, p.new)
		w, any := fwd.Worst()
		if !any || w != Safe {
			continue
		}
		back := Compare(p.new, p.old)
		if len(back.Changes) == 0 {
			t.Errorf("%s: safe one way, nothing the other", p.name)
			continue
		}
		if bw, _ := back.Worst(); bw == Safe && !strings.Contains(p.name, "version") {
			t.Errorf("%s: safe both ways: %v", p.name, lines(back))
		}
	}
}
