package cli

import (
	"encoding/csv"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/pflag"
)

// A repeatable flag reads as pflag's stringArray does: each use adds one
// value, commas and all; the first use replaces what the variable held; the
// help names the type stringArray and shows no default.
func TestRepeatableFlag(t *testing.T) {
	mine := pflag.NewFlagSet("mine", pflag.ContinueOnError)
	theirs := pflag.NewFlagSet("theirs", pflag.ContinueOnError)
	var a, b []string
	stringsVarP(mine, &a, "header", "H", "a header (repeatable)")
	theirs.StringArrayVarP(&b, "header", "H", nil, "a header (repeatable)")
	if got, want := mine.FlagUsages(), theirs.FlagUsages(); got != want {
		t.Errorf("help:\n%s\nwant:\n%s", got, want)
	}
	a, b = []string{"held"}, []string{"held"}
	args := []string{"-H", "A: 1, 2", "--header", `B: "x"`, "-H", ""}
	if err := mine.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := theirs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("values %q, pflag's %q", a, b)
	}
	if got, want := mine.Lookup("header").Value.String(), theirs.Lookup("header").Value.String(); got != want {
		t.Errorf("String() = %s, pflag's %s", got, want)
	}
	sv, ok := mine.Lookup("header").Value.(pflag.SliceValue)
	if !ok {
		t.Fatal("not a pflag.SliceValue (shell completion repeats such flags)")
	}
	if err := sv.Replace([]string{"x"}); err != nil || !slices.Equal(sv.GetSlice(), []string{"x"}) {
		t.Errorf("Replace: %v, %q", err, sv.GetSlice())
	}
}

// String writes each value as encoding/csv writes it, as pflag does.
func TestRepeatableString(t *testing.T) {
	for _, vals := range [][]string{{"a"}, {"a,b", "c"}, {" lead", "\ttab"}, {`q"uote`}, {"line\nbreak"}, {`\.`}, {"", "x"}, {"é", "ü,"}} {
		var b strings.Builder
		w := csv.NewWriter(&b)
		if err := w.Write(vals); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		want := "[" + strings.TrimSuffix(b.String(), "\n") + "]"
		v := vals
		if got := (&repeatable{p: &v}).String(); got != want {
			t.Errorf("%q: %s, want %s", vals, got, want)
		}
	}
}

// Every mcp-tester command builds the whole command tree as it starts,
// whichever command runs: the tree must stay cheap. With pflag's own
// repeatable flags it took 730 KB (each writing its empty default through
// a 4 KiB CSV buffer); it takes about 310 KB.
func TestCommandTreeIsCheap(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	NewRootCmd(io)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 450_000 {
		t.Errorf("building the command tree allocated %d bytes, more than 450,000", n)
	}
	// What a command line that names its command builds: that command
	// alone, which stays in memory for the whole run.
	runtime.GC()
	runtime.ReadMemStats(&before)
	newRoot(io, ownTree([]string{"test", "-s", "x.mcp"}))
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 60_000 {
		t.Errorf("building mcp-tester test allocated %d bytes, more than 60,000", n)
	}
}
