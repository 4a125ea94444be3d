package termsafe

import "unicode"

// Class is the kind of a character that [Unsafe] reports: what a reader
// does not see, or what changes how the rest is shown. It is the one
// classification of hidden characters: the URL checks and the scan of
// what a server tells the model name characters by it.
type Class int

// The classes of characters.
const (
	// Visible is every character [Unsafe] lets through.
	Visible Class = iota
	// Control is a C0 control (newline and tab included), DEL or a C1
	// control: a terminal acts on it (ESC starts escape sequences).
	Control
	// Bidi is a bidirectional control (embeddings, overrides, isolates,
	// marks): it reorders how the text around it is shown.
	Bidi
	// LineSeparator is U+2028 or U+2029.
	LineSeparator
	// Tag is a Unicode tag character (U+E0000 to U+E007F): invisible, yet
	// each one spells an ASCII character that a model reads.
	Tag
	// Format is another invisible format character: zero-width space,
	// joiners, word joiner, byte order mark, soft hyphen, …
	Format
)

// Classify says which class r is in; [Visible] exactly when [Unsafe] is
// false.
func Classify(r rune) Class {
	if !Unsafe(r) {
		return Visible
	}
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return Control
	case unicode.Is(unicode.Bidi_Control, r):
		return Bidi
	case r == 0x2028 || r == 0x2029:
		return LineSeparator
	case r >= 0xe0000 && r <= 0xe007f:
		return Tag
	}
	return Format
}

// String names the class, as a phrase: "a bidirectional control".
func (c Class) String() string {
	switch c {
	case Control:
		return "a control character"
	case Bidi:
		return "a bidirectional control"
	case LineSeparator:
		return "a line separator"
	case Tag:
		return "a tag character"
	case Format:
		return "an invisible format character"
	}
	return "a visible character"
}
