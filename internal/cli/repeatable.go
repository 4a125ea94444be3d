package cli

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// stringsVarP defines a repeatable string flag: each use adds one value,
// as pflag's StringArrayVarP does, with the same name of its type in the
// help ("stringArray") and no default.
//
// pflag's own value writes its default out through a CSV writer when the
// flag is defined (a 4 KiB buffer each time). Every command defines its
// repeatable flags when mcp-tester starts, whichever command runs, and the
// CSV writers were a tenth of the start's CPU time; this value spells
// itself out only when asked.
func stringsVarP(f *pflag.FlagSet, p *[]string, name, shorthand, usage string) {
	*p = nil
	f.VarP(&repeatable{p: p}, name, shorthand, usage)
}

// stringsVar is stringsVarP without a shorthand.
func stringsVar(f *pflag.FlagSet, p *[]string, name, usage string) {
	stringsVarP(f, p, name, "", usage)
}

// repeatable is the value of a repeatable string flag (stringsVarP). It
// implements pflag.SliceValue, as pflag's own does, for shell completion.
type repeatable struct {
	p     *[]string
	given bool
}

// String is empty before a value is given (so that the help shows no
// default), and the values in brackets, comma-separated, after, as pflag
// writes a stringArray.
func (r *repeatable) String() string {
	if len(*r.p) == 0 {
		return ""
	}
	quoted := make([]string, len(*r.p))
	for i, v := range *r.p {
		quoted[i] = csvField(v)
	}
	return "[" + strings.Join(quoted, ",") + "]"
}

// csvField writes v as one CSV field, as encoding/csv does: quoted, with
// its quotes doubled, when it holds a comma, a quote or a line break,
// starts with white space, or is \. alone.
func csvField(v string) string {
	first, _ := utf8.DecodeRuneInString(v)
	if v == "" || (v != `\.` && !strings.ContainsAny(v, ",\"\r\n") && !unicode.IsSpace(first)) {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// Set adds v; the first value given replaces whatever the flag held
// before, as with pflag's stringArray.
func (r *repeatable) Set(v string) error {
	if !r.given {
		*r.p = nil
		r.given = true
	}
	*r.p = append(*r.p, v)
	return nil
}

func (r *repeatable) Type() string { return "stringArray" }

// Append adds v to what the flag holds, without replacing it first, as
// pflag's stringArray does.
func (r *repeatable) Append(v string) error {
	*r.p = append(*r.p, v)
	return nil
}

// Replace sets the values to vs. As with pflag's stringArray, it does not
// count as a use of the flag: the next Set still replaces them.
func (r *repeatable) Replace(vs []string) error {
	*r.p = append([]string(nil), vs...)
	return nil
}

func (r *repeatable) GetSlice() []string { return append([]string(nil), *r.p...) }
