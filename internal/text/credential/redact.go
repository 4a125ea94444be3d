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
	changed := false
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "redacted")
			changed = true
		}
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			// A query that does not parse may still carry a secret: hide it whole.
			u.RawQuery = "redacted"
			changed = true
		} else {
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
				changed = true
			}
		}
	}
	if segs := strings.Split(u.EscapedPath(), "/"); len(segs) > 1 {
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
			changed = true
		}
	}
	if !changed {
		return s
	}
	return u.String()
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
		out := raw
		_, value, _ := strings.Cut(w.text, "=")
		switch {
		case reference.MatchString(w.text) || (strings.Contains(w.text, "=") && reference.MatchString(value)):
			// $TOKEN or ${TOKEN}: the name of a secret, not the secret.
		case hideNext:
			out = Hidden
			secret(w.text)
		case Token(w.text):
			out = Hidden
			secret(w.text)
		case assignment.MatchString(w.text):
			if i := strings.IndexByte(raw, '='); i >= 0 && i+1 < len(raw) {
				out = raw[:i+1] + Hidden
				secret(value)
			}
		case strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "="):
			name, value, _ := strings.Cut(strings.TrimLeft(w.text, "-"), "=")
			if value != "" && (Name(name) || Token(value)) {
				i := strings.IndexByte(raw, '=')
				out = raw[:i+1] + Hidden
				secret(value)
			} else if r := RedactURL(value); r != value {
				out = raw[:strings.IndexByte(raw, '=')+1] + quoteIfNeeded(r)
				for _, s := range Secrets(value, nil) {
					secret(s)
				}
			}
		case headerWord.MatchString(w.text):
			name := headerWord.FindStringSubmatch(w.text)[1]
			if Name(name) {
				out = quoteIfNeeded(name + ": " + Hidden)
				_, v, _ := strings.Cut(w.text, ":")
				secret(strings.TrimSpace(v))
			}
		default:
			if r := RedactURL(w.text); r != w.text {
				out = quoteIfNeeded(r)
				for _, s := range Secrets(w.text, nil) {
					secret(s)
				}
			}
		}
		hideNext = false
		if strings.HasPrefix(w.text, "-") && !strings.Contains(w.text, "=") {
			name := strings.TrimLeft(w.text, "-")
			hideNext = len(name) > 1 && Name(name)
		}
		b.WriteString(line[last:w.start])
		b.WriteString(out)
		last = w.end
	}
	b.WriteString(line[last:])
	return b.String()
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
		switch {
		case c == ' ' || c == '\t' || c == '\n' || strings.IndexByte(";&|()<>", c) >= 0:
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				cur.WriteString(line[i+1:])
				i = len(line) - 1
				continue
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				i = len(line) - 1
			}
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
