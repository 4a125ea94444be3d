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
		name := "Other"
		for _, s := range scriptTables {
			if unicode.Is(s.table, r) {
				name = s.name
				break
			}
		}
		if !slices.Contains(seen, name) {
			seen = append(seen, name)
		}
	}
	if len(seen) < 2 {
		return nil
	}
	for _, mix := range usualMixes {
		if !slices.ContainsFunc(seen, func(s string) bool { return !slices.Contains(mix, s) }) {
			return nil
		}
	}
	return seen
}
