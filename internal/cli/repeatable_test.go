package cli

import (
	"encoding/csv"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
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

// Append, Replace and Set together do what pflag's stringArray does with
// them: Append adds to what the variable holds, Replace does not count as
// a use, so the first Set after it still replaces.
func TestRepeatableSliceValue(t *testing.T) {
	var a, b []string
	mine := &repeatable{p: &a}
	theirs := pflag.NewFlagSet("theirs", pflag.ContinueOnError)
	theirs.StringArrayVar(&b, "header", nil, "")
	tv := theirs.Lookup("header").Value.(pflag.SliceValue)
	steps := []func(v pflag.Value) error{
		func(v pflag.Value) error { return v.(pflag.SliceValue).Replace([]string{"r1", "r2"}) },
		func(v pflag.Value) error { return v.(pflag.SliceValue).Append("a1") },
		func(v pflag.Value) error { return v.Set("s1") },
		func(v pflag.Value) error { return v.(pflag.SliceValue).Append("a2") },
		func(v pflag.Value) error { return v.Set("s2") },
		func(v pflag.Value) error { return v.(pflag.SliceValue).Replace([]string{"r3"}) },
		func(v pflag.Value) error { return v.Set("s3") },
	}
	for i, step := range steps {
		if err := step(mine); err != nil {
			t.Fatal(err)
		}
		if err := step(tv.(pflag.Value)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("after step %d: %q, pflag's %q", i, a, b)
		}
	}
	a, b = []string{"held"}, []string{"held"}
	mine.given = false
	fresh := pflag.NewFlagSet("fresh", pflag.ContinueOnError)
	fresh.StringArrayVar(&b, "header", nil, "")
	b = []string{"held"}
	if err := mine.Append("x"); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Lookup("header").Value.(pflag.SliceValue).Append("x"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("Append on a held value: %q, pflag's %q", a, b)
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

// Help, completion and a command line that names no known command build
// the whole command tree: the tree must stay cheap. With pflag's own
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
