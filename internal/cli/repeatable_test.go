package cli

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
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

// BenchmarkCommandTree: what building the command tree allocates (B/op,
// allocs/op), whole (help, completion and a command line that names no
// known command build it: about 340 KB; with pflag's own repeatable flags,
// each writing its empty default through a 4 KiB CSV buffer, 730 KB) and
// for a command line that names its command (that command alone, which
// stays in memory for the whole run). make bench (section allocs) runs
// it; BENCHMARKS.md gives the figures.
func BenchmarkCommandTree(b *testing.B) {
	io, _, _, _ := iostreams.Test()
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewRootCmd(io)
		}
	})
	b.Run("test-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			newRoot(io, ownTree([]string{"test", "-s", "x.mcp"}))
		}
	})
}

// A command line that names its command builds that command alone; one
// that names none builds every command. What each tree allocates is a
// figure of BenchmarkCommandTree (make bench, section allocs;
// BENCHMARKS.md, "Allocations per operation"), not asserted here.
func TestCommandTreeBuildsWhatIsNamed(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	names := func(root *cobra.Command) []string {
		var l []string
		for _, c := range root.Commands() {
			l = append(l, c.Name())
		}
		return l
	}
	if got := names(newRoot(io, ownTree([]string{"test", "-s", "x.mcp"}))); len(got) != 1 || got[0] != "test" {
		t.Errorf("mcp-tester test -s x.mcp built %q, want test alone", got)
	}
	if got, all := names(NewRootCmd(io)), commands(io); len(got) < len(all) {
		t.Errorf("the whole tree holds %q, fewer than the %d commands of the table", got, len(all))
	}
}
