package scan

import (
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/lazyre"
)

// An address data can be sent to is written with a scheme
// (https://x.example/c), as an e-mail or IPv4 address (see destination),
// or as a host name without a scheme (collect.example.com/?c=…,
// evil-example.com), or scheme-relative (//collect.example.com/c): a
// model that is told to visit or send to it does so all the same.

// bareHost is a host name without a scheme: labels, dots, a top-level
// domain's letters (group 1), and a port, path or query after it.
var bareHost = lazyre.New(`(?i)\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24})\b((?::\d{1,5})?[/?][^\s<>"'` + "`" + `)\]]*|:\d{1,5}\b)?`)

// fileExtensions are the endings of file names and of code (main.go,
// config.json, Node.js, process.env) that read like a host name: a name
// that ends in one is no address unless a scheme says it is.
var fileExtensions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"go": true, "py": true, "js": true, "mjs": true, "cjs": true, "ts": true, "tsx": true, "jsx": true, "md": true,
		"rs": true, "rb": true, "sh": true, "txt": true, "json": true, "jsonl": true, "yaml": true, "yml": true,
		"toml": true, "html": true, "htm": true, "css": true, "csv": true, "xml": true, "log": true, "env": true,
		"cfg": true, "ini": true, "conf": true, "lock": true, "php": true, "java": true, "kt": true, "swift": true,
		"cpp": true, "hpp": true, "cc": true, "vue": true, "sql": true, "pdf": true, "png": true, "jpg": true,
		"jpeg": true, "gif": true, "svg": true, "zip": true, "gz": true, "tar": true, "exe": true, "dll": true,
		"so": true, "bin": true, "dat": true, "pem": true, "key": true, "crt": true, "ipynb": true, "lua": true,
		"pl": true, "scala": true, "dart": true, "ex": true, "exs": true, "mdx": true, "rst": true, "tex": true,
		"doc": true, "docx": true, "xls": true, "xlsx": true, "ppt": true, "pptx": true, "webp": true, "mp3": true,
		"mp4": true, "wav": true, "db": true, "sqlite": true, "wasm": true, "jar": true, "class": true, "proto": true,
	}
})

// commonTLDs are the top-level domains a name without a scheme, a port
// or a path is taken for an address with (evil-example.com): with one of
// them it is, with another (user.name, window.location) it is not.
var commonTLDs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"com": true, "net": true, "org": true, "io": true, "co": true, "ai": true, "app": true, "dev": true,
		"xyz": true, "info": true, "biz": true, "me": true, "us": true, "uk": true, "de": true, "fr": true,
		"ru": true, "cn": true, "top": true, "site": true, "online": true, "cloud": true, "tech": true,
		"store": true, "live": true, "link": true, "click": true, "example": true,
	}
})

// maxAddresses bounds the addresses read in one sentence.
const maxAddresses = 8

// addressSpans returns where the addresses of sent are, in order: those
// destination finds, and host names without a scheme that are not part
// of one, nor of a file's path (src/main.go), nor a file or code name;
// a scheme-relative address (//host/…) is read with its slashes.
func addressSpans(sent string) [][]int {
	spans := destination.FindAllStringIndex(sent, maxAddresses)
	if !hasDottedLetter(sent) {
		return spans
	}
	for _, m := range bareHost.FindAllStringSubmatchIndex(sent, maxAddresses) {
		if len(spans) >= maxAddresses {
			break
		}
		start := m[0]
		if schemeRelative(sent, start) {
			start -= 2
		}
		if !bareAddress(sent, m) || overlaps(spans, start, m[1]) {
			continue
		}
		spans = insertSpan(spans, []int{start, m[1]})
	}
	return spans
}

// schemeRelative reports whether the host name at start of s is written
// scheme-relative: after "//" at the start of s or after a space, a
// bracket, a quote, '=' or '>' ("to //collect.example.com/c",
// src="//cdn.example.com/x.js"), not in a path (a//b.example.com) nor
// after a scheme (s3://b.example.com is read as destination reads it).
func schemeRelative(s string, start int) bool {
	if start < 2 || s[start-1] != '/' || s[start-2] != '/' {
		return false
	}
	return start == 2 || strings.IndexByte(" \t\n\r([{<\"'`=>", s[start-3]) >= 0
}

// bareAddress reports whether the match m of bareHost in s is an
// address: not after a character that makes it part of a path, an
// address or a word (but for the "//" of a scheme-relative address),
// not a file's name, and with a port, a path, www. or a common
// top-level domain.
func bareAddress(s string, m []int) bool {
	if m[0] > 0 && strings.IndexByte("/.@:\\-_=#&%~+$", s[m[0]-1]) >= 0 && !schemeRelative(s, m[0]) {
		return false
	}
	tld := strings.ToLower(s[m[2]:m[3]])
	if fileExtensions()[tld] {
		return false
	}
	return m[4] >= 0 && m[5] > m[4] || commonTLDs()[tld] || strings.HasPrefix(strings.ToLower(s[m[0]:m[1]]), "www.")
}

// overlaps reports whether [start, end) overlaps one of spans.
func overlaps(spans [][]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}

// insertSpan inserts sp into spans, kept in order of their starts.
func insertSpan(spans [][]int, sp []int) [][]int {
	i := len(spans)
	for i > 0 && spans[i-1][0] > sp[0] {
		i--
	}
	spans = append(spans, nil)
	copy(spans[i+1:], spans[i:])
	spans[i] = sp
	return spans
}

// hasDottedLetter reports whether s holds a dot followed by an ASCII
// letter: what a host name needs.
func hasDottedLetter(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && (s[i+1]|0x20 >= 'a' && s[i+1]|0x20 <= 'z') {
			return true
		}
	}
	return false
}

// hasScheme reports whether the address d was written with a scheme a
// browser or a client fetches, or one defanged (hxxps).
func hasScheme(d string) bool {
	u := strings.ToLower(d)
	return strings.HasPrefix(u, "http") || strings.HasPrefix(u, "hxxp") || strings.HasPrefix(u, "ws") || strings.HasPrefix(u, "ftp")
}

// joinedSentences cuts s into sentences as a model reads them: a line
// break is a space, so that an order cut by one (a hard-wrapped line, a
// list of steps) is one sentence; they end at a full stop, question or
// exclamation mark followed by a space or a line break (not the number
// of a numbered list: "1. copy …"), at a semicolon, and are at most
// maxSentence bytes.
func joinedSentences(s string) []string {
	var out []string
	start, lineStart := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			lineStart = i + 1
		case s[i] == '.' && listNumber(s[lineStart:i]):
		case endsSentence(s, i):
			out = appendSentence(out, s[start:i])
			start = i + 1
		}
	}
	return appendSentence(out, s[start:])
}

// listNumber reports whether s, the start of a line up to a full stop,
// is the number of a numbered list: at most three digits.
func listNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// An address spelled out with spaces ("h t t p s : / / t . example .
// net / x") is read by a model as the address it spells, while no
// person writes one so but to hide it: its scheme spelled out is what
// marks it, and the rules about addresses read it closed up (see
// unspaced).

// spacedScheme is a scheme written with spaces in it or around its
// "://": "h t t p s : / /", "https : //", "h x x p s [:] //".
var spacedScheme = lazyre.New(`(?i)\bh[ \t]*[tx][ \t]*[tx][ \t]*p[ \t]*(?:s[ \t]*)?(?::|\[[ \t]*:[ \t]*\])[ \t]*/[ \t]*/`)

// maxSpacedWords bounds the words after a spaced scheme read as the rest
// of its address.
const maxSpacedWords = 64

// unspaced returns s with each address spelled out with spaces closed
// up ("h t t p s : / / t . example . net / x" is
// "https://t.example.net/x"), or "" when s has none: a scheme written
// whole ("https://…") is no such address, however the words after it
// are spaced.
func unspaced(s string) string {
	if !strings.Contains(s, "/") {
		return ""
	}
	var b strings.Builder
	last := 0
	for _, loc := range spacedScheme.FindAllStringIndex(s, maxAddresses) {
		scheme := s[loc[0]:loc[1]]
		if loc[0] < last || !strings.ContainsAny(scheme, " \t") {
			continue
		}
		end, rest := spacedRest(s, loc[1])
		if rest == "" {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(strings.Join(strings.Fields(scheme), ""))
		b.WriteString(rest)
		last = end
	}
	if last == 0 {
		return ""
	}
	b.WriteString(s[last:])
	return b.String()
}

// spacedRest returns the rest of an address spelled out with spaces
// whose scheme ends at i of s, closed up, and where it ends: the words
// after the scheme, on its line, while each is one character, begins
// with what parts an address ('.', '/', '?' …) or comes after a word
// made of those only ("t . example-stats . net / x"); a quote or an
// angle bracket ends it.
func spacedRest(s string, i int) (end int, rest string) {
	var b strings.Builder
	afterSeparator := true // the first word after "//" is the host's
	for n := 0; n < maxSpacedWords; n++ {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		k := j
		for k < len(s) && !isSpace(s[k]) {
			k++
		}
		word := s[j:k]
		if word == "" || strings.ContainsAny(word, "\"'<>`") {
			break
		}
		if b.Len() > 0 && !afterSeparator && len(word) != 1 && !addressSeparator(word[0]) {
			break
		}
		b.WriteString(word)
		afterSeparator = strings.Trim(word, addressSeparators) == ""
		i = k
	}
	return i, b.String()
}

// addressSeparators part the pieces of an address: its labels, path
// segments, query and port.
const addressSeparators = "./:?=&#-_@%+~"

// addressSeparator reports whether c is one of addressSeparators.
func addressSeparator(c byte) bool { return strings.IndexByte(addressSeparators, c) >= 0 }
