package cli

import (
	"fmt"
	"strconv"

	"github.com/askback/askback/internal/report"
	"github.com/spf13/cobra"
)

// addFormatFlag adds --format text|json and, when alias is set, --json as
// its shorthand.
func addFormatFlag(cmd *cobra.Command, format *string, alias *bool) {
	*format = "text"
	cmd.Flags().Var(formatValue{p: format, asked: new(string)}, "format", "output format: text or json")
	if alias != nil {
		f := cmd.Flags().VarPF(jsonAlias{p: format, said: new(bool)}, "json", "", "print JSON (same as --format json)")
		f.NoOptDefVal = "true"
	}
}

// formatValue is --format; asked keeps what --format itself said, which
// --json may have overridden since.
type formatValue struct{ p, asked *string }

func (f formatValue) String() string {
	if f.p == nil {
		return "text"
	}
	return *f.p
}
func (f formatValue) Type() string { return "text|json" }
func (f formatValue) Set(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("%q: use text or json", s)
	}
	*f.p = s
	if f.asked != nil {
		*f.asked = s
	}
	return nil
}

// jsonAlias is --json; said keeps what it said last.
type jsonAlias struct {
	p    *string
	said *bool
}

func (j jsonAlias) String() string { return strconv.FormatBool(j.p != nil && *j.p == "json") }
func (j jsonAlias) Type() string   { return "bool" }
func (j jsonAlias) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*j.p = "json"
	}
	if j.said != nil {
		*j.said = b
	}
	return nil
}

// addFormatChoice adds --format for a command that prints one of choices
// (the first is the default, names from internal/report), refusing any
// other with the list.
func addFormatChoice(cmd *cobra.Command, format *string, usage string, choices ...string) {
	cmd.Flags().Var(report.NewChoice(format, choices...), "format", usage)
}
