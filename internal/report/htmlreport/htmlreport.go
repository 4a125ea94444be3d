// Package htmlreport writes the reports of mcp-tester as one self-contained
// HTML page each (`--html FILE` on test, audit, inspect, scan, grade and
// bench): the style inline, the charts inline SVG, no script, nothing
// fetched. A page reads the same offline, from a file:// URL and in a CI
// system's artifact viewer, and forbids itself to load or run anything (a
// Content Security Policy that allows only its own style sheet, by hash).
//
// Everything a server sent goes through html/template's escaping and,
// before that, through internal/text/termsafe: control characters, escape
// sequences and bidirectional overrides show as \x1b, \u202e, so that a
// server can neither hide nor reorder what a person reads. The page is a
// function of the report and [Meta] alone (the time it names is
// Meta.Generated): the same data give the same bytes.
package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/text/termsafe"
)

// Meta is what every page says about the run besides its report.
type Meta struct {
	// Command is what ran, e.g. "mcp-tester test"; the page's title
	// starts with it.
	Command string
	// Target is the server, as the command reached it (target.Describe:
	// credentials redacted).
	Target string
	// Version is mcp-tester's version.
	Version string
	// Generated is when the report was written, shown in UTC.
	Generated time.Time
	// Hide, when set, hides secrets in every text of the page (the
	// credentials of the command line, see iostreams.Hide), before it is
	// escaped.
	Hide func(string) string
}

//go:embed templates/*.tmpl templates/style.css
var files embed.FS

// assets are the templates, parsed on the first report (not as every
// mcp-tester command starts: parsing them was a twentieth of its start),
// the style sheet, and the page's Content Security Policy, which allows
// that style sheet and nothing else.
type assets struct {
	pages *template.Template
	style string
	csp   string
}

var loadAssets = sync.OnceValue(func() assets {
	pages := template.Must(template.New("").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).ParseFS(files, "templates/*.tmpl"))
	b, err := files.ReadFile("templates/style.css")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	csp := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; form-action 'none'; base-uri 'none'"
	return assets{pages: pages, style: string(b), csp: csp}
})

// page is what a page's template draws: the head, the header and the
// footer (templates "head" and "foot") around one report's body.
type page struct {
	Title     string
	Subtitle  string
	Target    string
	Version   string
	Generated string
	CSP       string
	Style     template.CSS
	Verdict   string // passed, failed or incomplete: the colour of the header
	Body      any
}

// render writes the page of body with the template named name.
func render(w io.Writer, m Meta, name, title, subtitle, verdict string, body any) error {
	t := text{m.Hide}
	a := loadAssets()
	p := page{
		Title:     t.line(strings.TrimSpace(m.Command + ": " + title)),
		Subtitle:  t.line(subtitle),
		Target:    t.line(m.Target),
		Version:   t.line(m.Version),
		Generated: m.Generated.UTC().Format("2006-01-02 15:04:05 UTC"),
		CSP:       a.csp,
		Style:     template.CSS(a.style),
		Verdict:   verdict,
		Body:      body,
	}
	if m.Generated.IsZero() {
		p.Generated = ""
	}
	var b bytes.Buffer
	if err := a.pages.ExecuteTemplate(&b, name, p); err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// text makes what a server sent safe to show: secrets hidden, control and
// invisible characters escaped (html/template escapes the markup).
type text struct{ hide func(string) string }

// line is s on one line.
func (t text) line(s string) string {
	if t.hide != nil {
		s = t.hide(s)
	}
	return termsafe.Line(s)
}

// serverName is how a page names a server on one line (see
// termsafe.ServerName), its secrets hidden.
func (t text) serverName(name, version string) string {
	if t.hide != nil {
		name, version = t.hide(name), t.hide(version)
	}
	return termsafe.ServerName(name, version)
}

// block is s with its line breaks kept.
func (t text) block(s string) string {
	if t.hide != nil {
		s = t.hide(s)
	}
	return termsafe.Block(s)
}

// duration writes d for a person, rounded to what matters.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
	return d.Round(time.Second).String()
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
