package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
// (the first is the default), refusing any other with the list.
func addFormatChoice(cmd *cobra.Command, format *string, usage string, choices ...string) {
	*format = choices[0]
	cmd.Flags().Var(choiceValue{p: format, choices: choices}, "format", usage)
}

// choiceValue is a flag that takes one of its choices.
type choiceValue struct {
	p       *string
	choices []string
}

func (c choiceValue) String() string {
	if c.p == nil {
		return ""
	}
	return *c.p
}
func (c choiceValue) Type() string { return strings.Join(c.choices, "|") }
func (c choiceValue) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("%q: use %s", s, orList(c.choices))
	}
	*c.p = s
	return nil
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
