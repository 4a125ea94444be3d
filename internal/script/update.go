package script

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/script/syntax"
)

// UpdateNote is what an update did, or could not do, with one failed step.
type UpdateNote struct {
	Line    int
	Updated bool
	Text    string // what was done, or why it could not be
	// Old and New are the expected value as the script had it and as the
	// update wrote it (the value, not its quoting), when Updated.
	Old, New string
}

func (n UpdateNote) String() string { return fmt.Sprintf("line %d: %s", n.Line, n.Text) }

// Update rewrites the expected values of the checks that failed in res, a
// run of s, in the text s was parsed from, so that they hold what the run found (the
// way golden files are updated): only those values change, every other
// byte of src stays as it is, and the quoting of each value is kept where
// the new value allows it. It returns the new source (src itself when
// nothing changed) and a note per failed step: updated, or why not (an
// expected value with variables, a failure that is no check, a check an
// update cannot write). The new source is parsed before it is returned;
// one that would not parse is an error.
func Update(s *Script, res *ScriptResult) ([]byte, []UpdateNote, error) {
	src := []byte(s.src)
	text, hasBOM := strings.CutPrefix(s.src, bom)
	lines := strings.Split(text, "\n")
	var notes []UpdateNote
	rw := rewrite{edits: map[int][]lineEdit{}, bodies: map[int]newBody{}}
	var p parser // each failed step's line is parsed into its room
	for i, st := range s.Steps() {
		if i >= len(res.Steps) {
			break
		}
		r := res.Steps[i]
		if r.Passed {
			continue
		}
		c, err := s.command(&p, st)
		if err != nil {
			return nil, notes, err
		}
		notes = append(notes, rw.add(st, c, r, lines))
	}
	if !rw.changed {
		return src, notes, nil
	}
	updated := []byte(strings.Join(rw.apply(lines), "\n"))
	if hasBOM {
		updated = append([]byte(bom), updated...)
	}
	if _, err := ParseFile(s.Name, updated); err != nil {
		return nil, notes, fmt.Errorf("the updated script would not parse, so it is left as it was: %w", err)
	}
	return updated, notes, nil
}

// rewrite is what Update changes of a script's lines.
type rewrite struct {
	edits   map[int][]lineEdit // by line, applied from the right so that offsets hold
	bodies  map[int]newBody    // by the first line of a here-document's body
	changed bool
}

// lineEdit replaces the bytes from to to of a line with text.
type lineEdit struct {
	from, to int
	text     string
}

// newBody replaces the count lines of a here-document's body.
type newBody struct {
	count int
	lines []string
}

// add notes the change of the failed step st, parsed as c, that r asks
// for, and says what became of it.
func (rw *rewrite) add(st Step, c *command, r *StepResult, lines []string) UpdateNote {
	note := UpdateNote{Line: st.Line}
	switch {
	case r.fix == nil && c.def.assertion:
		note.Text = fmt.Sprintf("not updated: %s cannot be rewritten for this failure (%s)", st.Command, oneLine(r.Message))
		return note
	case r.fix == nil:
		note.Text = fmt.Sprintf("not updated: %s is no check (%s)", st.Command, oneLine(r.Message))
		return note
	}
	t := c.args[r.fix.arg]
	if _, ok := t.literal(); !ok {
		note.Text = "not updated: the expected value uses variables"
		return note
	}
	if t.heredoc != nil {
		body, err := heredocBody(t, r.fix, lines)
		if err != nil {
			note.Text = "not updated: " + err.Error()
			return note
		}
		rw.bodies[t.heredoc.first] = newBody{t.heredoc.count, body}
	} else {
		text, err := render(t, r.fix)
		if err != nil {
			note.Text = "not updated: " + err.Error()
			return note
		}
		rw.edits[st.Line-1] = append(rw.edits[st.Line-1], lineEdit{t.start, t.end, text})
	}
	note.Updated = true
	note.Text = fmt.Sprintf("%s updated", st.Command)
	note.Old, _ = t.literal()
	note.New = r.fix.text
	if r.fix.isJSON {
		note.New = expect.Compact(r.fix.json)
	}
	rw.changed = true
	return note
}

// apply returns lines with the changes made.
func (rw *rewrite) apply(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		if b, ok := rw.bodies[i]; ok {
			out = append(out, b.lines...)
			i += b.count - 1
			continue
		}
		line := lines[i]
		es := rw.edits[i]
		for k := len(es) - 1; k >= 0; k-- {
			e := es[k]
			line = line[:e.from] + e.text + line[e.to:]
		}
		out = append(out, line)
	}
	return out
}

// Source is the text s was parsed from, as Update rewrites it.
func Source(s *Script) []byte { return []byte(s.src) }

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// render writes the new value of t in t's way of writing where it can.
func render(t token, f *fix) (string, error) {
	if f.isJSON {
		return renderJSON(t, f.json), nil
	}
	if !utf8.ValidString(f.text) {
		return "", fmt.Errorf("the new value is not UTF-8 text")
	}
	return renderText(t, f.text), nil
}

// renderJSON writes the JSON value v as t was written where it can.
func renderJSON(t token, v expect.Value) string {
	c := expect.Compact(v)
	switch t.kind {
	case jsonToken:
		if isContainer(v) {
			return c
		}
	case singleToken:
		if !strings.Contains(c, "'") {
			return "'" + c + "'"
		}
		if isContainer(v) {
			return c
		}
	case bareToken:
		if syntax.Word(c) == c && !strings.Contains(c, "=") {
			return c
		}
		if !strings.Contains(c, "'") {
			return "'" + c + "'"
		}
	}
	return syntax.Quote(c)
}

// renderText writes text as t was written where it can.
func renderText(t token, text string) string {
	switch t.kind {
	case singleToken:
		if plain(text) && !strings.Contains(text, "'") {
			return "'" + text + "'"
		}
	case bareToken:
		if text != "" && syntax.Word(text) == text && !strings.Contains(text, "=") {
			return text
		}
	case jsonToken:
		if v, err := expect.Decode([]byte(text)); err == nil && isContainer(v) && !strings.Contains(text, "\n") {
			return text
		}
	}
	return syntax.Quote(text)
}

func isContainer(v expect.Value) bool {
	switch v.(type) {
	case *expect.Object, []any:
		return true
	}
	return false
}

// plain reports whether s can be written between single quotes as it is:
// printable, on one line.
func plain(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// heredocBody is the new body of a here-document: JSON indented as the old
// body was (or on one line, as it was), a text as it is; a body line that
// is the end marker cannot be written.
func heredocBody(t token, f *fix, lines []string) ([]string, error) {
	var text string
	if f.isJSON {
		old := lines[t.heredoc.first : t.heredoc.first+t.heredoc.count]
		text = expect.Compact(f.json)
		if len(old) > 1 {
			text = expect.Indent(f.json, indentOf(old))
		}
	} else {
		text = f.text
	}
	body := strings.Split(text, "\n")
	crlf := t.heredoc.count > 0 && strings.HasSuffix(lines[t.heredoc.first], "\r")
	for i, l := range body {
		if strings.TrimSpace(l) == t.heredoc.marker || strings.Contains(l, "\r") {
			return nil, fmt.Errorf("the new value has a line that is the here-document's end marker %s, or a carriage return", t.heredoc.marker)
		}
		if crlf {
			body[i] = l + "\r"
		}
	}
	return body, nil
}

// indentOf is the indentation of the first indented line, two spaces when
// none is.
func indentOf(lines []string) string {
	for _, l := range lines {
		if n := len(l) - len(strings.TrimLeft(l, " \t")); n > 0 && strings.TrimSpace(l) != "" {
			return l[:n]
		}
	}
	return "  "
}
