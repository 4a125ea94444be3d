package grade

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// letterColors are the badge's colors by letter.
var letterColors = map[string]string{"A": "#2e7d32", "B": "#558b2f", "C": "#b58900", "D": "#d9661a", "F": "#c62828"}

// BadgeText is what the badge's right half says: the letter and score,
// and "partial" when not everything was checked.
func (g *Grade) BadgeText() string {
	s := fmt.Sprintf("%s %d", g.Letter, g.Score)
	if g.Partial() {
		s += " partial"
	}
	return s
}

// WriteBadge writes the grade as a self-contained SVG badge (no fonts,
// images or links to fetch) with label on its left half: the same grade
// gives the same bytes. Both texts are escaped.
func (g *Grade) WriteBadge(w io.Writer, label string) error {
	value := g.BadgeText()
	color, ok := letterColors[g.Letter]
	if !ok {
		color = "#9e9e9e"
	}
	lw, rw := textWidth(label)+10, textWidth(value)+10
	width := lw + rw
	title := label + ": " + value
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">`+"\n", width, escape(title))
	fmt.Fprintf(&b, "<title>%s</title>\n", escape(title))
	b.WriteString(`<linearGradient id="shade" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` + "\n")
	fmt.Fprintf(&b, `<clipPath id="round"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`+"\n", width)
	fmt.Fprintf(&b, `<g clip-path="url(#round)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#shade)"/></g>`+"\n", lw, lw, rw, color, width)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` + "\n")
	for _, t := range []struct {
		x    float64
		text string
	}{{float64(lw) / 2, label}, {float64(lw) + float64(rw)/2, value}} {
		fmt.Fprintf(&b, `<text x="%.1f" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%.1f" y="14">%s</text>`+"\n", t.x, escape(t.text), t.x, escape(t.text))
	}
	b.WriteString("</g>\n</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// escape is s as XML character data or an attribute value.
func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// textWidth estimates the width in pixels of s in 11px Verdana: narrow,
// wide and other characters.
func textWidth(s string) int {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("il.:,;'|!", r):
			w += 3.5
		case strings.ContainsRune("fjrtI ()[]", r):
			w += 4.5
		case strings.ContainsRune("mwMW", r):
			w += 10.5
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 7.5
		default:
			w += 6.5
		}
	}
	return int(w + 0.5)
}
