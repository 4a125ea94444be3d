package credential

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/askback/askback/internal/text/lazyre"
)

// Hidden is what replaces a credential.
const Hidden = "[redacted]"

// RedactURL hides the password of a URL's user information, the values of
// query parameters named like credentials or holding a token (see [Name]
// and [Token]), and path segments that are tokens. Text that is not a URL
// is returned as it is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme == "" && u.Host == "") {
		return s
	}
	changed := redactPassword(u)
	changed = redactQuery(u) || changed
	changed = redactPath(u) || changed
	if !changed {
		return s
	}
	return u.String()
}

// redactPassword hides the password of u's user information, and reports
// whether there was one.
func redactPassword(u *url.URL) bool {
	if u.User == nil {
		return false
	}
	if _, ok := u.User.Password(); !ok {
		return false
	}
	u.User = url.UserPassword(u.User.Username(), "redacted")
	return true
}

// redactQuery hides the values of u's query parameters named like
// credentials or holding a token, or the whole query when it does not
// parse, and reports whether it hid any.
func redactQuery(u *url.URL) bool {
	if u.RawQuery == "" {
		return false
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		// A query that does not parse may still carry a secret: hide it whole.
		u.RawQuery = "redacted"
		return true
	}
	hit := false
	for k, vs := range q {
		for i, v := range vs {
			if Name(k) || Token(v) {
				vs[i] = "redacted"
				hit = true
			}
		}
	}
	if hit {
		u.RawQuery = q.Encode()
	}
	return hit
}

// redactPath hides the segments of u's path that are tokens, and reports
// whether it hid any.
func redactPath(u *url.URL) bool {
	segs := strings.Split(u.EscapedPath(), "/")
	if len(segs) <= 1 {
		return false
	}
	hit := false
	for i, seg := range segs {
		if v, err := url.PathUnescape(seg); err == nil && Token(v) {
			segs[i] = "redacted"
			hit = true
		}
	}
	if hit {
		u.RawPath = strings.Join(segs, "/")
		u.Path, _ = url.PathUnescape(u.RawPath)
	}
	return hit
}

// assignment is a shell variable assignment: NAME=value.
var assignment = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*=`)

// reference is a word that only names a variable: $NAME or ${NAME}.
var reference = lazyre.New(`^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$`)

// headerWord is a "Name: value" header written as one word.
var headerWord = lazyre.New(`^([A-Za-z0-9_-]+):\s+\S`)

// RedactCommand hides credentials in a shell command line, as the trace
// and error messages show it: the value of every NAME=value assignment
// (GITHUB_TOKEN=… ./server, env API_KEY=… server), of options named like
// credentials (--api-key=…, --token …), of "Name: value" header arguments
// whose name says credential, the credentials in URLs, and any word that
// is a token by its form. A value that only names a variable ($TOKEN,
// ${TOKEN}) is kept: it is no secret. Quotes are kept where they were.
func RedactCommand(line string) string {
	return redactCommand(line, func(string) {})
}

// CommandSecrets returns the credentials [RedactCommand] hides in a shell
// command line that look like secrets, for the output to hide wherever a
// server echoes them: tokens by their form, and values of 8 or more
// characters with letters and digits. The trace hides every value
// RedactCommand does; the output hides only these, since a value hidden
// there is hidden in every message (the value of a flag whose name merely
// contains "key", such as a method name, would vanish from the errors that
// name it).
func CommandSecrets(line string) []string {
	var out []string
	redactCommand(line, func(s string) {
		if len(s) >= MinSecret && (Token(s) || secretLooking(s)) {
			out = append(out, s)
		}
	})
	return out
}

// secretLooking reports whether s looks like a generated secret: 8 or more
// characters, letters and digits among them.
func secretLooking(s string) bool {
	letter, digit := false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case unicode.IsLetter(r):
			letter = true
		}
	}
	return len(s) >= 8 && letter && digit
}

// redactCommand is RedactCommand, telling secret of each value it hides.
func redactCommand(line string, secret func(string)) string {
	words := splitWords(line)
	var b strings.Builder
	last := 0
	hideNext := false
	for _, w := range words {
		raw := line[w.start:w.end]
		b.WriteString(line[last:w.start])
		b.WriteString(redactWord(w.text, raw, hideNext, secret))
		hideNext = takesSecret(w.text)
		last = w.end
	}
	b.WriteString(line[last:])
	return b.String()
}

// redactWord returns raw, a word of a command line whose unquoted text is
// text, with the credential it holds hidden, telling secret of it;
// hideNext says the word before was an option that takes a credential.
func redactWord(text, raw string, hideNext bool, secret func(string)) string {
	_, value, _ := strings.Cut(text, "=")
	switch {
	case namesVariable(text, value):
		// $TOKEN or ${TOKEN}: the name of a secret, not the secret.
	case hideNext:
		secret(text)
		return Hidden
	case Token(text):
		secret(text)
		return Hidden
	case assignment.MatchString(text):
		if i := strings.IndexByte(raw, '='); i >= 0 && i+1 < len(raw) {
			secret(value)
			return raw[:i+1] + Hidden
		}
	case strings.HasPrefix(text, "-") && strings.Contains(text, "="):
		return redactOption(text, raw, secret)
	case headerWord.MatchString(text):
		return redactHeaderWord(text, raw, secret)
	default:
		return redactURLWord(text, raw, "", secret)
	}
	return raw
}

// namesVariable reports whether the word text, or the value of the
// assignment or option it is, only names a variable ($NAME or ${NAME}).
func namesVariable(text, value string) bool {
	return reference.MatchString(text) || (strings.Contains(text, "=") && reference.MatchString(value))
}

// redactOption is redactWord for an option with its value, --name=value:
// the value hidden when the name says credential or the value is a token,
// else the credentials in it if it is a URL.
func redactOption(text, raw string, secret func(string)) string {
	name, value, _ := strings.Cut(strings.TrimLeft(text, "-"), "=")
	if value != "" && (Name(name) || Token(value)) {
		secret(value)
		return raw[:strings.IndexByte(raw, '=')+1] + Hidden
	}
	return redactURLWord(value, raw, raw[:strings.IndexByte(raw, '=')+1], secret)
}

// redactURLWord returns prefix and the URL u with its credentials hidden,
// quoted if need be, telling secret of each; raw when u is no URL or holds
// none.
func redactURLWord(u, raw, prefix string, secret func(string)) string {
	r := RedactURL(u)
	if r == u {
		return raw
	}
	for _, s := range Secrets(u, nil) {
		secret(s)
	}
	return prefix + quoteIfNeeded(r)
}

// redactHeaderWord is redactWord for a "Name: value" header: the value
// hidden when the name says credential.
func redactHeaderWord(text, raw string, secret func(string)) string {
	name := headerWord.FindStringSubmatch(text)[1]
	if !Name(name) {
		return raw
	}
	_, v, _ := strings.Cut(text, ":")
	secret(strings.TrimSpace(v))
	return quoteIfNeeded(name + ": " + Hidden)
}

// takesSecret reports whether the word text is an option, without its
// value, named like a credential: the next word is its value.
func takesSecret(text string) bool {
	if !strings.HasPrefix(text, "-") || strings.Contains(text, "=") {
		return false
	}
	name := strings.TrimLeft(text, "-")
	return len(name) > 1 && Name(name)
}

func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, " \t'\"") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// word is one shell word of a command line: where it is, and its text with
// the quotes taken off.
type word struct {
	start, end int
	text       string
}

// splitWords cuts a command line into words as a POSIX shell would for
// the purpose of finding values: white space and the operators ;&|()<>
// separate words outside quotes; single quotes, double quotes and
// backslashes quote. An unterminated quote runs to the end.
func splitWords(line string) []word {
	var out []word
	var cur strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, word{start: start, end: end, text: cur.String()})
		}
		start = -1
		cur.Reset()
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if wordBreak(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\'':
			i = singleQuoted(line, i, &cur)
		case '"':
			i = doubleQuoted(line, i, &cur)
		case '\\':
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush(len(line))
	return out
}

// wordBreak reports whether c separates words outside quotes: white space
// or one of the operators ;&|()<>.
func wordBreak(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || strings.IndexByte(";&|()<>", c) >= 0
}

// singleQuoted writes to cur the text of the single-quoted string that
// opens at line[i], and returns the index of its closing quote (or of the
// last byte, when it has none).
func singleQuoted(line string, i int, cur *strings.Builder) int {
	j := strings.IndexByte(line[i+1:], '\'')
	if j < 0 {
		cur.WriteString(line[i+1:])
		return len(line) - 1
	}
	cur.WriteString(line[i+1 : i+1+j])
	return i + j + 1
}

// doubleQuoted writes to cur the text of the double-quoted string that
// opens at line[i], its backslash escapes read, and returns the index of
// its closing quote (or of the last byte, when it has none).
func doubleQuoted(line string, i int, cur *strings.Builder) int {
	i++
	for ; i < len(line) && line[i] != '"'; i++ {
		if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
			i++
		}
		cur.WriteByte(line[i])
	}
	return min(i, len(line)-1)
}
