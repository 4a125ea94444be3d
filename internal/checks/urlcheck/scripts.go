package urlcheck

import (
	"slices"
	"unicode"
)

// scriptTables are the scripts that letters of host names are checked against. A label
// whose letters come from more than one of them (outside the usual mixes of East Asian
// writing) is reported.
var scriptTables = []struct {
	name  string
	table *unicode.RangeTable
}{
	{"Latin", unicode.Latin},
	{"Cyrillic", unicode.Cyrillic},
	{"Greek", unicode.Greek},
	{"Armenian", unicode.Armenian},
	{"Georgian", unicode.Georgian},
	{"Hebrew", unicode.Hebrew},
	{"Arabic", unicode.Arabic},
	{"Cherokee", unicode.Cherokee},
	{"Han", unicode.Han},
	{"Hiragana", unicode.Hiragana},
	{"Katakana", unicode.Katakana},
	{"Hangul", unicode.Hangul},
	{"Bopomofo", unicode.Bopomofo},
	{"Thai", unicode.Thai},
	{"Devanagari", unicode.Devanagari},
}

// usualMixes are combinations of scripts that are normal in one writing system.
var usualMixes = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// MixedScripts returns the scripts of the letters in label when they are more than one
// and not a usual mix; otherwise nil. Letters of other scripts count as "Other".
func MixedScripts(label string) []string {
	var seen []string
	for _, r := range label {
		if !unicode.IsLetter(r) {
			continue
		}
		if name := scriptOf(r); !slices.Contains(seen, name) {
			seen = append(seen, name)
		}
	}
	if len(seen) < 2 || usualMix(seen) {
		return nil
	}
	return seen
}

// scriptOf names the script of the letter r, "Other" for one of no
// script in scriptTables.
func scriptOf(r rune) string {
	for _, s := range scriptTables {
		if unicode.Is(s.table, r) {
			return s.name
		}
	}
	return "Other"
}

// usualMix reports whether the scripts are all of one of the usual mixes.
func usualMix(scripts []string) bool {
	for _, mix := range usualMixes {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(mix, s) }) {
			return true
		}
	}
	return false
}
