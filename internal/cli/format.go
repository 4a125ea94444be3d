package cli

import (
	"strconv"

	"github.com/askback/askback/internal/report"
	"github.com/spf13/cobra"
)

// addFormatFlag adds --format text|json (report.Choice, the one place of
// the format names) and, when alias is set, --json as its shorthand.
func addFormatFlag(cmd *cobra.Command, format *string, alias *bool) {
	cmd.Flags().Var(formatValue{Choice: report.NewChoice(format, report.Text, report.JSON), asked: new(string)}, "format", "output format: text or json")
	if alias != nil {
		f := cmd.Flags().VarPF(jsonAlias{p: format, said: new(bool)}, "json", "", "print JSON (same as --format json)")
		f.NoOptDefVal = "true"
	}
}

// formatValue is --format; asked keeps what --format itself said, which
// --json may have overridden since.
type formatValue struct {
	report.Choice
	asked *string
}

// Set chooses s, or says which formats there are.
func (f formatValue) Set(s string) error {
	if err := f.Choice.Set(s); err != nil {
		return err
	}
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

func (j jsonAlias) String() string { return strconv.FormatBool(j.p != nil && *j.p == report.JSON) }
func (j jsonAlias) Type() string   { return "bool" }
func (j jsonAlias) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*j.p = report.JSON
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
