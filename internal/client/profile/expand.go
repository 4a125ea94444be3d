package profile

import (
	"fmt"
	"strings"
)

// Expand replaces ${NAME} in s with lookup(NAME). "$$" stands for a single
// "$"; any other "$" is kept as it is. A variable that is not set, or a
// "${" without its "}", is an error that names it.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("%q: ${ without a closing }", s)
			}
			name := s[i+2 : i+2+end]
			if !validVar(name) {
				return "", fmt.Errorf("%q: ${%s} is not a variable name", s, name)
			}
			v, ok := lookup(name)
			if !ok {
				return "", fmt.Errorf("the environment variable %s is not set", name)
			}
			b.WriteString(v)
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func validVar(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Expanded returns a copy of p with ${NAME} expanded in every value.
func (p *Profile) Expanded(lookup func(string) (string, bool)) (*Profile, error) {
	out := *p
	var err error
	field := func(name string, v *string) {
		if err != nil {
			return
		}
		var e error
		if *v, e = Expand(*v, lookup); e != nil {
			err = fmt.Errorf("%s: %w", name, e)
		}
	}
	field("command", &out.Command)
	field("url", &out.URL)
	field("transport", &out.Transport)
	field("protocol", &out.Protocol)
	field("timeout", &out.Timeout)
	field("connect_timeout", &out.ConnectTimeout)
	if p.Auth != nil {
		a := *p.Auth
		a.Scopes = append([]string(nil), p.Auth.Scopes...)
		field("auth.identity", &a.Identity)
		field("auth.client_id", &a.ClientID)
		field("auth.client_secret", &a.ClientSecret)
		field("auth.client_metadata_url", &a.ClientMetadataURL)
		field("auth.client_key", &a.ClientKey)
		field("auth.assertion_file", &a.AssertionFile)
		field("auth.id_token_file", &a.IDTokenFile)
		field("auth.idp_issuer", &a.IdPIssuer)
		field("auth.idp_client_id", &a.IdPClientID)
		field("auth.redirect_url", &a.RedirectURL)
		for i := range a.Scopes {
			field("auth.scopes", &a.Scopes[i])
		}
		out.Auth = &a
	}
	if p.Headers != nil {
		out.Headers = make(map[string]string, len(p.Headers))
		for k, v := range p.Headers {
			field("header "+k, &v)
			out.Headers[k] = v
		}
	}
	return &out, err
}
