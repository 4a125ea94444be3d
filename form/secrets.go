package form

import (
	"fmt"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/text/credential"
)

// SecretPolicy decides which fields look like secrets. The specification
// forbids asking for passwords, API keys, access tokens or payment data in
// form mode: whatever a form collects is visible to the client, and so
// possibly to the model, logs and intermediaries. Such input belongs in URL
// mode.
//
// It is the project's one rule of what names a secret: [New] refuses such
// fields, the tester's audit fails a server that asks for them, its
// interactive forms warn about them, and it hides the answers to them in
// what it records, all through the same terms.
//
// A text is read as words after normalising what disguises them: compatibility
// forms (full-width, mathematical letters) and accents are folded, invisible
// characters dropped, Cyrillic and Greek look-alikes read as the Latin letters
// they imitate ("pаssword" with a Cyrillic а), leetspeak inside words read as
// letters ("p@ssw0rd", "$ecret"), and camelCase, snake_case and kebab-case
// split. A term matches consecutive words, written apart or together ("api
// key", "apiKey", "api_key", "apikey"; "pass phrase", "passphrase"), plural
// or not. A field's name is also read for the short words that name a
// secret in an identifier (pat, csrf, tok, sig, creds).
type SecretPolicy struct {
	terms *credential.Terms
	allow map[string]bool
}

// DefaultSecretPolicy returns the policy New uses: names, titles and
// descriptions mentioning passwords (pwd, pw, passcode, passphrase), PINs,
// secrets, tokens, API or private keys, credentials, cookies, JWTs, one-time
// and second-factor codes (otp, 2fa, mfa, SMS codes), card numbers, CVV,
// IBAN, account numbers and the like are refused. "token" alone counts, but
// not before count, limit, budget or usage (an LLM's tokens); "pin" and "pan"
// alone count, but not as verbs ("Pin the issue").
func DefaultSecretPolicy() *SecretPolicy {
	return &SecretPolicy{terms: credential.DefaultTerms(), allow: map[string]bool{}}
}

// Add extends the policy with more terms: words naming a secret, matched as
// the default terms are ("wallet", "seed words").
func (p *SecretPolicy) Add(terms ...string) *SecretPolicy {
	p.terms.Add(terms...)
	return p
}

// Allow exempts a field by name, for a field the author has judged safe
// (e.g. "pin_to_top").
func (p *SecretPolicy) Allow(names ...string) *SecretPolicy {
	for _, n := range names {
		p.allow[n] = true
	}
	return p
}

// Check refuses a form with a secret-looking field, naming it.
func (p *SecretPolicy) Check(s *formschema.Schema) error {
	for _, f := range s.Fields {
		if what := p.Field(f); what != "" {
			return fmt.Errorf("field %q looks like it asks for a secret (%q): forms must never ask for passwords, keys, tokens or payment data; use URL mode for that", f.Name, what)
		}
	}
	return nil
}

// Field returns the secret term found in a field's name, title or
// description, or "" (also for a field exempted with [SecretPolicy.Allow]).
func (p *SecretPolicy) Field(f *formschema.Field) string {
	if p.allow[f.Name] {
		return ""
	}
	return p.terms.MatchName(f.Name, f.Title, f.Description)
}

// Match returns the first secret term found in any of the texts, or "".
// A term inside a warning not to give it ("do not give us your phone
// number, PIN or other sensitive info", "never share your password") does
// not count, unless the same clause goes on to ask after all ("never share
// your password, but type it here").
func (p *SecretPolicy) Match(texts ...string) string {
	return p.terms.Match(texts...)
}
