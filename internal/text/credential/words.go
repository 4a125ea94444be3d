package credential

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Terms are words that name a secret: the one rule of the project for
// names and texts, whoever reads them (form.New refusing a field, the
// audit, the interactive warnings, [Name] for headers and parameters,
// [Field] for answers and arguments).
//
// A text is read as words after normalising what disguises them: compatibility
// forms (full-width, mathematical letters) and accents are folded, invisible
// characters dropped, Cyrillic and Greek look-alikes read as the Latin letters
// they imitate ("pаssword" with a Cyrillic а), leetspeak inside words read as
// letters ("p@ssw0rd", "$ecret"), and camelCase, snake_case and kebab-case
// split. A term matches consecutive words, written apart or together ("api
// key", "apiKey", "api_key", "apikey"; "pass phrase", "passphrase"), plural
// or not. Some terms are read in names only (see [Terms.MatchName]): short
// words that name a secret in an identifier (X-Pat, X-Csrf) but mean other
// things in prose ("ask Pat").
type Terms struct {
	terms []secretTerm
	// index finds the terms a run of words spells: each term's joined
	// words (and their plural, unless exact) to its places in terms.
	index  map[string][]int
	maxLen int // the longest key of index
}

// reindex builds t.index from t.terms.
func (t *Terms) reindex() {
	t.index, t.maxLen = make(map[string][]int, 2*len(t.terms)), 0
	for k, term := range t.terms {
		keys := []string{term.joined}
		if !term.exact {
			keys = append(keys, term.joined+"s")
		}
		for _, key := range keys {
			t.index[key] = append(t.index[key], k)
			t.maxLen = max(t.maxLen, len(key))
		}
	}
}

// secretTerm is a sequence of words naming a secret.
type secretTerm struct {
	name   string // as written in the policy
	words  []string
	joined string
	// exact: no plural form ("token", whose plural is mostly about counting).
	exact bool
	// nameOnly: the term counts in a name, not in prose.
	nameOnly bool
	// notBefore: the term does not count when the next word is one of these
	// ("token count", "pin the issue").
	notBefore []string
}

// nameOnlyTerms name a secret in an identifier (a header, parameter,
// field or argument name) but not in prose: personal access tokens, CSRF
// tokens, abbreviations of token, signature, session id and credentials.
var nameOnlyTerms = []string{"pat", "csrf", "xsrf", "tok", "tkn", "sig", "sid", "creds", "cred"}

// DefaultTerms returns the project's terms: passwords (pwd, pw, passcode,
// passphrase), PINs, secrets, tokens, API or private keys, credentials,
// cookies, JWTs, one-time and second-factor codes (otp, 2fa, mfa, SMS
// codes), card numbers, CVV, IBAN, account and social-security numbers and
// the like. "token" alone counts, but not before count, limit, budget or
// usage (an LLM's tokens); "pin" and "pan" alone count, but not as verbs
// ("Pin the issue"). The Terms returned are the caller's to extend.
func DefaultTerms() *Terms {
	t := &Terms{}
	t.terms = append(t.terms, defaults().terms...)
	t.reindex()
	return t
}

// BuildDefaultTerms returns the terms of DefaultTerms built anew, rather
// than copied from those shared by Name, Field and DefaultTerms: for a
// caller that reads them once, at start-up (form.New), so that a program
// that never calls those keeps none of the shared terms alive (about 50 KB
// of heap, which a small server would otherwise carry into every
// collection). It takes longer than DefaultTerms.
func BuildDefaultTerms() *Terms {
	t := &Terms{terms: defaultTermList()}
	t.reindex()
	return t
}

// defaults are the default terms, built once and shared (never extended)
// by Name, Field and DefaultTerms.
var defaults = sync.OnceValue(func() *Terms {
	t := &Terms{terms: defaultTermList()}
	t.reindex()
	return t
})

// defaultTermList is every default term, its words normalised.
func defaultTermList() []secretTerm {
	out := make([]secretTerm, 0, len(defaultSecretTerms)+3+len(nameOnlyTerms))
	for _, s := range defaultSecretTerms {
		out = append(out, newTerm(s, false, false))
	}
	out = append(out,
		newTerm("token", true, false, "count", "counts", "limit", "limits", "budget", "usage", "window"),
		newTerm("pin", false, false, verbNext...),
		newTerm("pan", true, false, verbNext...))
	for _, s := range nameOnlyTerms {
		out = append(out, newTerm(s, false, true))
	}
	return out
}

func newTerm(text string, exact, nameOnly bool, notBefore ...string) secretTerm {
	ws := secretWords(text)
	return secretTerm{name: text, words: ws, joined: strings.Join(ws, ""), exact: exact, nameOnly: nameOnly, notBefore: notBefore}
}

// Add extends t with more terms: words naming a secret, matched as the
// default terms are ("wallet", "seed words").
func (t *Terms) Add(terms ...string) *Terms {
	for _, s := range terms {
		if term := newTerm(s, false, false); term.joined != "" {
			t.terms = append(t.terms, term)
		}
	}
	t.reindex()
	return t
}

// Match returns the first secret term found in any of the texts, read as
// prose, or "". A term inside a warning not to give it ("do not give us
// your phone number, PIN or other sensitive info", "never share your
// password") does not count, unless the same clause goes on to ask after
// all ("never share your password, but type it here").
func (t *Terms) Match(texts ...string) string {
	for _, s := range texts {
		if m := t.match(s, false); m != "" {
			return m
		}
	}
	return ""
}

// MatchName returns the first secret term found in name, read as an
// identifier (the terms read in names only count too: X-Pat, csrf_token),
// or else in the prose that describes it (a field's title and
// description), or "".
func (t *Terms) MatchName(name string, prose ...string) string {
	if m, ok := t.matchPlain(name); ok {
		if m != "" || len(prose) == 0 {
			return m
		}
	} else if m := t.match(name, true); m != "" {
		return m
	}
	return t.Match(prose...)
}

func (t *Terms) match(text string, name bool) string {
	ws, clauses := secretWordsIn(text)
	warned := warnedAgainst(ws, clauses)
	var run []byte
	for i := range ws {
		if warned[i] {
			continue
		}
		var best int
		if best, run = t.firstTermAt(ws, i, name, run[:0]); best >= 0 {
			return t.terms[best].name
		}
	}
	return ""
}

// firstTermAt returns the index of the first term (in t's order) that the
// words from ws[i] on spell, not followed by a word the term must not come
// before, or -1; terms for names alone count only when name is set. run is
// a buffer for the words joined, returned for reuse.
func (t *Terms) firstTermAt(ws []string, i int, name bool, run []byte) (int, []byte) {
	best := -1
	for j := i; j < len(ws) && len(run) < t.maxLen; j++ {
		run = append(run, ws[j]...)
		for _, k := range t.index[string(run)] {
			term := &t.terms[k]
			if (name || !term.nameOnly) && (best < 0 || k < best) &&
				(j+1 == len(ws) || !slices.Contains(term.notBefore, ws[j+1])) {
				best = k
			}
		}
	}
	return best, run
}

// verbNext are words after "pin" or "pan" that make it a verb ("Pin the issue").
var verbNext = []string{"the", "this", "that", "it", "to", "a", "an", "on", "up", "down", "left", "right"}

// defaultSecretTerms name secrets, credentials and payment data.
var defaultSecretTerms = []string{
	// passwords and passphrases
	"password", "passwd", "pwd", "pw", "passcode", "passphrase", "pass word",
	// secrets, keys and tokens
	"secret", "client secret", "api key", "access key", "private key", "secret key", "signing key",
	"encryption key", "ssh key", "license key", "recovery key", "master key", "credential",
	"access token", "refresh token", "id token", "auth token", "session token", "bearer", "jwt",
	"cookie", "session id", "auth code", "authorization code",
	// one-time codes and second factors
	"otp", "totp", "hotp", "2fa", "mfa", "one time code", "one time password", "one time passcode",
	"verification code", "security code", "sms code", "login code", "backup code", "recovery code",
	"2fa code", "mfa code", "otp code", "pin code", "pin number",
	// payment and identity data
	"card number", "credit card", "debit card", "cvv", "cvv2", "cvc", "csc", "iban", "swift code",
	"routing number", "account number", "sort code", "ssn", "social security number",
	"seed phrase", "recovery phrase", "mnemonic",
}

// Words that make a clause a warning not to give something: a negation
// ("not", "never", "don't", which reads as don + t) and right after it, but
// for "ever", "you", "please" or "to", a verb of giving ("do not give",
// "never ever share", "not to enter"; not "don't forget to enter").
var (
	negations   = []string{"not", "never", "dont", "nor"}
	beforeVerb  = []string{"ever", "you", "please", "to"}
	givingVerbs = []string{"give", "enter", "share", "type", "include", "provide", "send", "paste", "put", "write",
		"submit", "disclose", "reveal", "input", "tell", "post", "fill", "store", "use"}
	// askAfterAll: words after which a clause that began as a warning may ask
	// after all; such a clause is not a warning.
	askAfterAll = []string{"but", "instead", "except", "only", "however", "rather", "unless", "than"}
)

// warnedAgainst marks the words that stand in a warning not to give them:
// those after a negation and its verb of giving, to the end of their clause,
// in clauses without a word that turns to asking after all.
func warnedAgainst(ws []string, clauses []int) []bool {
	warned := make([]bool, len(ws))
	for k := range ws {
		if !negation(ws, k) {
			continue
		}
		verb := givingVerbAfter(ws, clauses, k)
		if verb < 0 {
			continue
		}
		end := clauseEnd(clauses, verb)
		if slices.ContainsFunc(ws[verb+1:end], func(w string) bool { return slices.Contains(askAfterAll, w) }) {
			continue
		}
		for j := verb + 1; j < end; j++ {
			warned[j] = true
		}
	}
	return warned
}

// negation reports whether ws[k] is a negation ("not", or the t of "don't").
func negation(ws []string, k int) bool {
	return slices.Contains(negations, ws[k]) || ws[k] == "t" && k > 0 && strings.HasSuffix(ws[k-1], "n")
}

// givingVerbAfter returns the index of the verb of giving that comes right
// after the negation ws[k] in its clause (past the words allowed before
// it), or -1.
func givingVerbAfter(ws []string, clauses []int, k int) int {
	verb := -1
	for j := k + 1; j < len(ws) && clauses[j] == clauses[k]; j++ {
		if slices.Contains(givingVerbs, ws[j]) {
			verb = j
		}
		if !slices.Contains(beforeVerb, ws[j]) {
			break
		}
	}
	return verb
}

// clauseEnd returns the index past the last word of the clause of word i.
func clauseEnd(clauses []int, i int) int {
	end := i + 1
	for end < len(clauses) && clauses[end] == clauses[i] {
		end++
	}
	return end
}

// secretWords normalises text (see [SecretPolicy]) and splits it into
// lower-case words.
func secretWords(text string) []string {
	ws, _ := secretWordsIn(text)
	return ws
}

// clauseEnds are the characters that end a clause (a sentence, a
// parenthesis): a warning reaches no further.
const clauseEnds = ".;:?()[]{}\n"

// secretWordsIn is secretWords with the clause each word stands in,
// numbered from 0.
func secretWordsIn(text string) (words []string, clauses []int) {
	runes := normalRunes(text)
	clause := 0
	for start := 0; start < len(runes); {
		if !wordRune(runes[start]) {
			if strings.ContainsRune(clauseEnds, runes[start]) {
				clause++
			}
			start++
			continue
		}
		end := start
		for end < len(runes) && wordRune(runes[end]) {
			end++
		}
		for _, w := range splitWord(unleet(runes[start:end])) {
			words = append(words, w)
			clauses = append(clauses, clause)
		}
		start = end
	}
	return words, clauses
}

// normalRunes returns the characters of text decomposed (NFKD), without
// accents and invisible characters, each look-alike of a Latin letter
// replaced by the letter.
func normalRunes(text string) []rune {
	if !ascii(text) {
		text = norm.NFKD.String(text)
	}
	var runes []rune
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Cf, r):
			// accents, zero-width and other invisible characters
		default:
			if l, ok := confusables[r]; ok {
				r = l
			}
			runes = append(runes, r)
		}
	}
	return runes
}

// wordRune reports whether r can be part of a word: a letter, a digit, or a
// symbol that leetspeak writes for a letter.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(leetSymbols, r)
}

const leetSymbols = "@$!|"

// leet maps what leetspeak writes to the letter it stands for.
var leet = map[rune]rune{'@': 'a', '4': 'a', '3': 'e', '1': 'i', '!': 'i', '|': 'l', '0': 'o', '5': 's', '$': 's', '7': 't'}

// unleet reads leetspeak in a word that has letters: a symbol before a
// letter stands for its letter ("p@ss", "$ecret") and is dropped elsewhere
// ("password!"); a run of digits between letters does too ("passw0rd",
// "pa55word"). Digits at a word's edge stay ("password1", "2fa", "cvv2"), and
// so does a word without letters ("2026").
func unleet(w []rune) []rune {
	if !slices.ContainsFunc(w, unicode.IsLetter) {
		return w
	}
	out := make([]rune, 0, len(w))
	for i := 0; i < len(w); i++ {
		r := w[i]
		if unicode.IsDigit(r) {
			out, i = appendDigits(out, w, i)
			continue
		}
		if l, sym := leet[r]; sym {
			if i+1 < len(w) && (unicode.IsLetter(w[i+1]) || unicode.IsDigit(w[i+1])) {
				out = append(out, l)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// appendDigits appends to out the run of digits of w that begins at i,
// each read as the letter it stands for when the run lies between letters
// and is leetspeak throughout, and returns the index of its last digit.
func appendDigits(out, w []rune, i int) ([]rune, int) {
	end := i
	for end < len(w) && unicode.IsDigit(w[end]) {
		end++
	}
	run := w[i:end]
	inside := i > 0 && end < len(w) && !unicode.IsDigit(w[end])
	for _, d := range run {
		if l, ok := leet[d]; ok && inside && allLeet(run) {
			d = l
		}
		out = append(out, d)
	}
	return out, end - 1
}

func allLeet(digits []rune) bool {
	for _, d := range digits {
		if _, ok := leet[d]; !ok {
			return false
		}
	}
	return true
}

// splitWord splits at camelCase boundaries and between letters and digits,
// and lower-cases the parts: "newPassword" → new, password; "APIKey" → api,
// key; "password2" → password, 2.
func splitWord(w []rune) []string {
	var out []string
	start := 0
	for i := 1; i < len(w); i++ {
		prev, r := w[i-1], w[i]
		nextLower := i+1 < len(w) && unicode.IsLower(w[i+1])
		camel := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsUpper(prev) && nextLower)
		if camel || unicode.IsDigit(r) != unicode.IsDigit(prev) {
			out = append(out, strings.ToLower(string(w[start:i])))
			start = i
		}
	}
	return append(out, strings.ToLower(string(w[start:])))
}

// confusables maps Cyrillic and Greek letters (and a few others) that look
// like Latin letters to the Latin letter they imitate.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w',
	'һ': 'h', 'ӏ': 'l', 'ɡ': 'g', 'ү': 'y',
	'А': 'A', 'В': 'B', 'Е': 'E', 'Ё': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C',
	'Т': 'T', 'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ї': 'I', 'Ј': 'J', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W',
	'Һ': 'H', 'Ӏ': 'I', 'Ү': 'Y',
	// Greek
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'ω': 'w',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin look-alikes
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ℓ': 'l',
}

// ascii reports whether s is ASCII alone, which normalising leaves as it is.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// maxPlainWords bounds the words matchPlain reads without allocating.
const maxPlainWords = 16

// matchPlain is match for a name of ASCII letters, '-', '_' and '.' alone
// (a header's, most parameters'), read as words split as secretWordsIn
// splits them, without allocating; ok is false for any other name, which
// match reads.
func (t *Terms) matchPlain(name string) (term string, ok bool) {
	var words [maxPlainWords][2]int
	n, ok := plainWords(name, &words)
	if !ok {
		return "", false
	}
	for i := 0; i < n; i++ {
		if best := t.termFrom(name, words[:n], i); best >= 0 {
			return t.terms[best].name, true
		}
	}
	return "", true
}

// plainWords splits a name of ASCII letters, '-', '_' and '.' alone into
// words as secretWordsIn splits it, each word the start and end of its
// bytes in words; ok is false for any other name, or one of more words
// than words holds.
func plainWords(name string, words *[maxPlainWords][2]int) (n int, ok bool) {
	start := -1
	for i := 0; i <= len(name); i++ {
		letter := false
		if i < len(name) {
			if !isPlainByte(name[i]) {
				return 0, false
			}
			letter = !isSeparator(name[i])
		}
		if start >= 0 && (!letter || camelStart(name, i)) {
			if n == maxPlainWords {
				return 0, false
			}
			words[n] = [2]int{start, i}
			n++
			start = -1
		}
		if letter && start < 0 {
			start = i
		}
	}
	return n, true
}

// termFrom returns the index of the first term that the words of name
// from the i-th on begin with, not followed by a word the term must not
// come before, or -1 when none does.
func (t *Terms) termFrom(name string, words [][2]int, i int) int {
	var buf [64]byte
	best := -1
	run := buf[:0]
	for j := i; j < len(words) && len(run) < t.maxLen; j++ {
		for k := words[j][0]; k < words[j][1]; k++ {
			run = append(run, lower(name[k]))
		}
		for _, k := range t.index[string(run)] {
			term := &t.terms[k]
			if (best < 0 || k < best) && (j+1 == len(words) || !wordIn(name[words[j+1][0]:words[j+1][1]], term.notBefore)) {
				best = k
			}
		}
	}
	return best
}

// isPlainByte reports whether c may stand in a name matchPlain reads.
func isPlainByte(c byte) bool { return isUpper(c) || isLower(c) || isSeparator(c) }

// isSeparator reports whether c separates the words of a plain name.
func isSeparator(c byte) bool { return c == '-' || c == '_' || c == '.' }

// camelStart reports whether the letter name[i], inside a word, begins a
// new one: an upper-case letter after a lower-case one, or the last
// upper-case letter of a run before a lower-case one ("APIKey").
func camelStart(name string, i int) bool {
	return isUpper(name[i]) && (!isUpper(name[i-1]) || i+1 < len(name) && isLower(name[i+1]))
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// wordIn reports whether w, in any letter case, is one of words.
func wordIn(w string, words []string) bool {
	for _, x := range words {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}
