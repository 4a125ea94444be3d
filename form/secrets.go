package form

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/askback/askback/formschema"
)

// SecretPolicy decides which fields look like secrets. The specification
// forbids asking for passwords, API keys, access tokens or payment data in
// form mode: whatever a form collects is visible to the client, and so
// possibly to the model, logs and intermediaries. Such input belongs in URL
// mode.
type SecretPolicy struct {
	patterns []*regexp.Regexp
	allow    map[string]bool
}

// defaultSecretWords are matched against a field's name, title and
// description, with word boundaries, after splitting camelCase and
// snake_case into words.
var defaultSecretWords = []string{
	`pass ?words?`, `passwd`, `passphrases?`, `pins?`, `pin codes?`, `secrets?`, `client secrets?`,
	`tokens?`, `access tokens?`, `refresh tokens?`, `bearer`, `api ?keys?`, `private ?keys?`, `secret ?keys?`,
	`ssh ?keys?`, `credentials?`, `otp`, `one time (pass)?codes?`, `2fa codes?`, `mfa codes?`, `totp`,
	`card ?numbers?`, `credit ?cards?`, `debit ?cards?`, `cvv`, `cvc`, `cvv2`, `security codes?`, `iban`,
	`account numbers?`, `routing numbers?`, `sort codes?`, `ssn`, `social security numbers?`, `seed phrases?`,
	`mnemonic`, `recovery codes?`, `auth ?codes?`,
}

// DefaultSecretPolicy returns the policy New uses: names, titles and
// descriptions mentioning passwords, passphrases, PINs, secrets, tokens,
// API or private keys, credentials, one-time codes, card numbers, CVV, IBAN,
// account numbers and the like are refused.
func DefaultSecretPolicy() *SecretPolicy {
	p := &SecretPolicy{allow: map[string]bool{}}
	p.Add(defaultSecretWords...)
	return p
}

// Add extends the policy with more patterns (regular expressions matched as
// whole words against the lower-cased, space-separated words of a field's
// name, title and description).
func (p *SecretPolicy) Add(patterns ...string) *SecretPolicy {
	for _, w := range patterns {
		p.patterns = append(p.patterns, regexp.MustCompile(`(^| )(`+w+`)( |$)`))
	}
	return p
}

// Allow exempts a field by name, for a field the author has judged safe
// (e.g. "token_count").
func (p *SecretPolicy) Allow(names ...string) *SecretPolicy {
	for _, n := range names {
		p.allow[n] = true
	}
	return p
}

// Check refuses a form with a secret-looking field, naming it.
func (p *SecretPolicy) Check(s *formschema.Schema) error {
	for _, f := range s.Fields {
		if p.allow[f.Name] {
			continue
		}
		if what := p.Match(f.Name, f.Title, f.Description); what != "" {
			return fmt.Errorf("field %q looks like it asks for a secret (%q): forms must never ask for passwords, keys, tokens or payment data; use URL mode for that", f.Name, what)
		}
	}
	return nil
}

// Match returns the secret-looking words found in any of the texts, or "".
func (p *SecretPolicy) Match(texts ...string) string {
	for _, t := range texts {
		w := words(t)
		for _, re := range p.patterns {
			if m := re.FindStringSubmatch(w); m != nil {
				return m[2]
			}
		}
	}
	return ""
}

var (
	camel    = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)
)

// words lower-cases s and splits it into space-separated words.
func words(s string) string {
	s = camel.ReplaceAllString(s, "$1 $2")
	s = strings.ToLower(s)
	return strings.TrimSpace(nonAlnum.ReplaceAllString(s, " "))
}
