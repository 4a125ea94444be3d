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
	// edits per line, applied from the right so that offsets hold.
	type edit struct {
		from, to int
		text     string
	}
	edits := map[int][]edit{}
	bodies := map[int]struct {
		count int
		lines []string
	}{}
	changed := false
	var p parser // each failed step's line is parsed into its room
	for i, st := range s.Steps() {
		if i >= len(res.Steps) {
			break
		}
		r := res.Steps[i]
		if r.Passed {
			continue
		}
		note := UpdateNote{Line: st.Line}
		c, err := s.command(&p, st)
		if err != nil {
			return nil, notes, err
		}
		switch {
		case r.fix == nil && c.def.assertion:
			note.Text = fmt.Sprintf("not updated: %s cannot be rewritten for this failure (%s)", st.Command, oneLine(r.Message))
		case r.fix == nil:
			note.Text = fmt.Sprintf("not updated: %s is no check (%s)", st.Command, oneLine(r.Message))
		default:
			t := c.args[r.fix.arg]
			if _, ok := t.literal(); !ok {
				note.Text = "not updated: the expected value uses variables"
				break
			}
			if t.heredoc != nil {
				body, err := heredocBody(t, r.fix, lines)
				if err != nil {
					note.Text = "not updated: " + err.Error()
					break
				}
				bodies[t.heredoc.first] = struct {
					count int
					lines []string
				}{t.heredoc.count, body}
			} else {
				text, err := render(t, r.fix)
				if err != nil {
					note.Text = "not updated: " + err.Error()
					break
				}
				edits[st.Line-1] = append(edits[st.Line-1], edit{t.start, t.end, text})
			}
			note.Updated = true
			note.Text = fmt.Sprintf("%s updated", st.Command)
			changed = true
		}
		notes = append(notes, note)
	}
	if !changed {
		return src, notes, nil
	}
	var out []string
	for i := 0; i < len(lines); i++ {
		if b, ok := bodies[i]; ok {
			out = append(out, b.lines...)
			i += b.count - 1
			continue
		}
		line := lines[i]
		es := edits[i]
		for k := len(es) - 1; k >= 0; k-- {
			e := es[k]
			line = line[:e.from] + e.text + line[e.to:]
		}
		out = append(out, line)
	}
	updated := []byte(strings.Join(out, "\n"))
	if hasBOM {
		updated = append([]byte(bom), updated...)
	}
	if _, err := ParseFile(s.Name, updated); err != nil {
		return nil, notes, fmt.Errorf("the updated script would not parse, so it is left as it was: %w", err)
	}
	return updated, notes, nil
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
		c := expect.Compact(f.json)
		switch t.kind {
		case jsonToken:
			if isContainer(f.json) {
				return c, nil
			}
		case singleToken:
			if !strings.Contains(c, "'") {
				return "'" + c + "'", nil
			}
			if isContainer(f.json) {
				return c, nil
			}
		case bareToken:
			if syntax.Word(c) == c && !strings.Contains(c, "=") {
				return c, nil
			}
			if !strings.Contains(c, "'") {
				return "'" + c + "'", nil
			}
		}
		return syntax.Quote(c), nil
	}
	if !utf8.ValidString(f.text) {
		return "", fmt.Errorf("the new value is not UTF-8 text")
	}
	switch t.kind {
	case singleToken:
		if plain(f.text) && !strings.Contains(f.text, "'") {
			return "'" + f.text + "'", nil
		}
	case bareToken:
		if f.text != "" && syntax.Word(f.text) == f.text && !strings.Contains(f.text, "=") {
			return f.text, nil
		}
	case jsonToken:
		if v, err := expect.Decode([]byte(f.text)); err == nil && isContainer(v) && !strings.Contains(f.text, "\n") {
			return f.text, nil
		}
	}
	return syntax.Quote(f.text), nil
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
