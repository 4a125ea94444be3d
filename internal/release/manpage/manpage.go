// Package manpage writes man pages (section 1, roff with the man macros)
// from a cobra command tree: one page per command, named as git names its
// pages (mcp-tester-profile-add.1), each with the command's synopsis,
// description, options, inherited options, examples and the pages around
// it. Every piece of text is escaped for roff, so that no help text can be
// read as a request.
package manpage

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Header is what every page's title line carries, and what the root's page
// adds.
type Header struct {
	Date   time.Time // the pages' date (a release takes its commit's time, so that the pages are reproducible)
	Source string    // the program and its version, e.g. "mcp-tester v0.9.0"
	Manual string    // the manual's title, e.g. "mcp-tester manual"
	// RootSections are sections added to the root command's page only, after
	// its examples (e.g. EXIT STATUS).
	RootSections []Section
}

// Section is a titled block of text for a page; Body is written as the
// descriptions are (paragraphs, indented lines kept as they are).
type Section struct {
	Title string
	Body  string
}

// Name is the page's name for cmd: its command path joined with dashes.
func Name(cmd *cobra.Command) string {
	return strings.ReplaceAll(cmd.CommandPath(), " ", "-")
}

// Tree writes the page of root and of every command under it that a user
// can run (hidden commands, and cobra's help command, left out), in the
// order of the command tree, handing each to write with its file name
// (NAME.1).
func Tree(root *cobra.Command, h Header, write func(file string, page []byte) error) error {
	var buf bytes.Buffer
	var walk func(*cobra.Command) error
	walk = func(cmd *cobra.Command) error {
		buf.Reset()
		if err := Page(&buf, cmd, h); err != nil {
			return err
		}
		if err := write(Name(cmd)+".1", bytes.Clone(buf.Bytes())); err != nil {
			return fmt.Errorf("man page of %q: %w", cmd.CommandPath(), err)
		}
		for _, c := range documented(cmd) {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}

// documented lists cmd's subcommands that get pages, by name.
func documented(cmd *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Page writes the man page of cmd.
func Page(w io.Writer, cmd *cobra.Command, h Header) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s 1 %s %s %s\n", quote(strings.ToUpper(Name(cmd))), quote(h.Date.UTC().Format("2006-01-02")), quote(h.Source), quote(h.Manual))
	// No hyphenation, left-aligned: option names and words split across
	// lines could not be copied.
	b.WriteString(".nh\n.ad l\n.SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", escape(Name(cmd)), escape(cmd.Short))

	writeSynopsis(&b, cmd)

	b.WriteString(".SH DESCRIPTION\n")
	long := cmd.Long
	if long == "" {
		long = cmd.Short
	}
	writeText(&b, long)

	if subs := documented(cmd); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range subs {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR(1)\n%s\n", escape(Name(c)), escape(c.Short))
		}
	}
	writeFlags(&b, "OPTIONS", cmd.NonInheritedFlags())
	writeFlags(&b, "GLOBAL OPTIONS", cmd.InheritedFlags())

	if cmd.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 4\n")
		writeLines(&b, trimBlock(cmd.Example))
		b.WriteString(".RE\n.fi\n")
	}
	if !cmd.HasParent() {
		for _, s := range h.RootSections {
			fmt.Fprintf(&b, ".SH %s\n", escape(strings.ToUpper(s.Title)))
			writeText(&b, s.Body)
		}
	}

	writeSeeAlso(&b, cmd)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSynopsis writes the SYNOPSIS section: the use line of a command that
// runs, and the form with a subcommand of one that has them.
func writeSynopsis(b *strings.Builder, cmd *cobra.Command) {
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	if cmd.Runnable() {
		fmt.Fprintf(b, "%s\n", synopsis(cmd.CommandPath(), cmd.UseLine()))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(b, "\\fB%s\\fR \\fICOMMAND\\fR\n", escape(cmd.CommandPath()))
	}
	b.WriteString(".fi\n")
}

// writeSeeAlso writes the SEE ALSO section: the pages of the parent and the
// subcommands, when there are any.
func writeSeeAlso(b *strings.Builder, cmd *cobra.Command) {
	var see []string
	if p := cmd.Parent(); p != nil {
		see = append(see, Name(p))
	}
	for _, c := range documented(cmd) {
		see = append(see, Name(c))
	}
	if len(see) == 0 {
		return
	}
	b.WriteString(".SH SEE ALSO\n")
	for i, name := range see {
		sep := ","
		if i == len(see)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "\\fB%s\\fR(1)%s\n", escape(name), sep)
	}
}

// synopsis sets the command path in bold and the rest of the use line as it
// is.
func synopsis(path, useLine string) string {
	rest := strings.TrimPrefix(useLine, path)
	return "\\fB" + escape(path) + "\\fR" + escape(rest)
}

// writeFlags writes a section with one tagged paragraph per visible flag.
func writeFlags(b *strings.Builder, title string, fs *pflag.FlagSet) {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			flags = append(flags, f)
		}
	})
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, f := range flags {
		varname, usage := pflag.UnquoteUsage(f)
		tag := "\\fB\\-\\-" + escape(f.Name) + "\\fR"
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			tag = "\\fB\\-" + escape(f.Shorthand) + "\\fR, " + tag
		}
		if varname != "" {
			tag += " \\fI" + escape(varname) + "\\fR"
		}
		if def := defaultText(f); def != "" {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n", tag)
		writeLines(b, usage)
	}
}

// defaultText is a flag's default as the help shows it, or empty when the
// default is the type's zero value.
func defaultText(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s", "map[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}

// writeText writes text as the descriptions are written in the commands'
// help: paragraphs separated by blank lines are filled, but a paragraph with
// an indented line keeps its lines as written.
func writeText(b *strings.Builder, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		para = strings.Trim(para, "\n")
		if strings.TrimSpace(para) == "" {
			continue
		}
		b.WriteString(".PP\n")
		if indented(para) {
			b.WriteString(".nf\n")
			writeLines(b, para)
			b.WriteString(".fi\n")
			continue
		}
		writeLines(b, para)
	}
}

func indented(para string) bool {
	for _, line := range strings.Split(para, "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			return true
		}
	}
	return false
}

// trimBlock removes the blank lines around a block, keeping its indentation.
func trimBlock(s string) string {
	return strings.Trim(s, "\n")
}

// writeLines writes each line escaped; an empty line becomes an empty
// request (".") rather than a blank line, which roff would read as a
// paragraph break outside no-fill mode.
func writeLines(b *strings.Builder, text string) {
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			b.WriteString(".sp\n")
			continue
		}
		b.WriteString(escape(line))
		b.WriteByte('\n')
	}
}

// escape makes text safe on a roff text line: the escape character written
// \e, hyphens \- (options that can be copied), characters past ASCII as
// \[uXXXX] (any roff reads them, with or without a UTF-8 preprocessor),
// control characters dropped, and a line that would start with a control
// character of roff (. or ') prefixed with the zero-width \&.
func escape(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			b.WriteString(`\&`)
		}
		for _, r := range line {
			escapeRune(&b, r)
		}
	}
	return b.String()
}

// escapeRune writes r as escape writes it on a text line.
func escapeRune(b *strings.Builder, r rune) {
	switch {
	case r == '\\':
		b.WriteString(`\e`)
	case r == '-':
		b.WriteString(`\-`)
	case (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f):
		// a control character: dropped
	case r > 0x7e:
		fmt.Fprintf(b, `\[u%04X]`, r)
	default:
		b.WriteRune(r)
	}
}

// quote makes s one argument of a request: in double quotes, with the
// quotes in it written as \(dq.
func quote(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}
