// Package mdtext puts text a server wrote into GitHub-flavoured Markdown
// (a pull request's comment) as plain text: nothing in it becomes a link,
// an image, a heading, a table cell, an HTML element or a mention, and
// control and invisible characters are shown as escapes
// (internal/text/termsafe).
package mdtext

import (
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// escaper backslash-escapes Markdown's punctuation, writes the characters
// HTML and mentions need as entities, and turns line breaks into <br>.
//
// An escape or an entity keeps a character from being read as Markdown,
// but the renderer's autolinks read the text it decoded: "a&#64;b\.com"
// is the text "a@b.com" there, which GitHub makes a mailto: link (and
// "xmpp&#58;a&#64;b\.com" an xmpp: one), and "&#64;team" a mention. So
// "@" stands alone between two <wbr> (an empty element, shown as nothing):
// no text around it holds both sides of an address or a name after it.
var escaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "{", `\{`, "}", `\}`, "[", `\[`, "]", `\]`,
	"(", `\(`, ")", `\)`, "#", `\#`, "+", `\+`, "-", `\-`, ".", `\.`, "!", `\!`, "|", `\|`,
	"~", `\~`, ">", "&gt;", "<", "&lt;", "&", "&amp;", "@", "<wbr>&#64;<wbr>", ":", "&#58;",
	"\r\n", "<br>", "\n", "<br>", "\t", " ",
)

// Text is s as plain Markdown text, on one line (line breaks as <br>),
// safe in a table cell.
func Text(s string) string { return escaper.Replace(termsafe.Block(s)) }

// Code is s as an inline code span on one line, fenced with more
// backticks than any run of them in s; a | is escaped, as a table cell
// needs even inside code.
func Code(s string) string {
	s = strings.ReplaceAll(termsafe.Line(s), "|", `\|`)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
