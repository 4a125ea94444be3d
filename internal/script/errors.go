package script

import (
	"fmt"
	"strings"
)

// SyntaxError is a problem found while parsing a script, before anything
// runs. Its text is FILE:LINE:COL: message.
type SyntaxError struct {
	File string // the script's name as given to ParseFile
	Line int    // 1-based line
	Col  int    // 1-based column, in characters
	Msg  string // what is wrong and what to do
}

// Error returns FILE:LINE:COL: message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// SyntaxErrors is every syntax error of a script, in line order. ParseFile
// returns it as its error; use errors.As to reach the individual errors.
type SyntaxErrors []*SyntaxError

// Error returns the errors one per line.
func (es SyntaxErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// maxSyntaxErrors bounds how many errors one file reports.
const maxSyntaxErrors = 20
