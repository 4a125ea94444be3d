package audit

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretTerms are word sequences that name secrets, credentials or payment
// data, which a form must never ask for (they belong in URL mode). Matching
// is on whole words after splitting camelCase, snake_case and kebab-case,
// so "tokenizer" or "passage" never match.
var secretTerms = [][]string{
	{"password"}, {"passwd"}, {"passphrase"}, {"passcode"}, {"pwd"},
	{"secret"}, {"secrets"}, {"client", "secret"},
	{"token"}, {"access", "token"}, {"refresh", "token"}, {"bearer"}, {"jwt"},
	{"api", "key"}, {"apikey"}, {"access", "key"}, {"private", "key"}, {"secret", "key"},
	{"signing", "key"}, {"encryption", "key"}, {"ssh", "key"}, {"license", "key"},
	{"credential"}, {"credentials"},
	{"card", "number"}, {"credit", "card"}, {"debit", "card"}, {"cardnumber"}, {"pan"},
	{"cvv"}, {"cvv2"}, {"cvc"}, {"csc"}, {"security", "code"},
	{"iban"}, {"bic"}, {"swift", "code"}, {"routing", "number"}, {"account", "number"}, {"sort", "code"},
	{"pin", "code"}, {"pin", "number"}, {"otp"}, {"totp"}, {"mfa", "code"}, {"2fa"}, {"one", "time", "code"}, {"verification", "code"},
	{"seed", "phrase"}, {"recovery", "phrase"}, {"mnemonic"}, {"recovery", "code"},
}

// tokenNotSecret are words after "token" that make it about counting (an
// LLM's tokens), not a credential.
var tokenNotSecret = map[string]bool{"count": true, "limit": true, "budget": true, "usage": true, "counts": true}

// words splits text into lower-case words at case changes, digits-letters
// boundaries and every non-alphanumeric character.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 && unicode.IsUpper(r) {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// secretIn returns the secret term found in text, or "".
func secretIn(text string) string {
	ws := words(text)
	for i := range ws {
		for _, term := range secretTerms {
			if i+len(term) > len(ws) {
				continue
			}
			match := true
			for j, t := range term {
				if ws[i+j] != t {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			if len(term) == 1 && term[0] == "token" && i+1 < len(ws) && tokenNotSecret[ws[i+1]] {
				continue
			}
			return strings.Join(term, " ")
		}
	}
	return ""
}

// secretFields lists the fields of a form question that ask for a secret,
// judged by field name, title and description.
func secretFields(p *mcp.ElicitParams) []string {
	var out []string
	check := func(field, what, text string) {
		if t := secretIn(text); t != "" {
			out = append(out, fmt.Sprintf("field %q: %s %q names a secret (%s)", field, what, text, t))
		}
	}
	if form, err := formschema.Parse(p.RequestedSchema); err == nil {
		for _, f := range form.Fields {
			check(f.Name, "name", f.Name)
			check(f.Name, "title", f.Title)
			check(f.Name, "description", f.Description)
		}
		return out
	}
	// Outside the subset: look at what can be read.
	for name, prop := range asMap(asMap(p.RequestedSchema)["properties"]) {
		pm := asMap(prop)
		title, _ := pm["title"].(string)
		desc, _ := pm["description"].(string)
		check(name, "name", name)
		check(name, "title", title)
		check(name, "description", desc)
	}
	return out
}
