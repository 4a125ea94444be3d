package login

import (
	"fmt"

	"golang.org/x/oauth2"
)

// checkToken refuses a token whose access token, refresh token or type
// holds anything but printable ASCII (RFC 6749's VSCHAR, %x20-7E): a CR or
// LF would end the Authorization header and start another, an ESC would
// reach a terminal, and none of them can be cached, shown or sent as they
// are. It is checked before the token is used or cached.
func checkToken(t *oauth2.Token) error {
	for _, f := range []struct{ name, value string }{{"an access token", t.AccessToken}, {"a refresh token", t.RefreshToken}, {"a token type", t.TokenType}} {
		if err := printableASCII(f.name, f.value); err != nil {
			return err
		}
	}
	return nil
}

// printableASCII reports the first byte of v outside %x20-7E.
func printableASCII(name, v string) error {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		what := "a character outside printable ASCII"
		switch {
		case c == '\r':
			what = "a control character (CR)"
		case c == '\n':
			what = "a control character (LF)"
		case c == 0x1b:
			what = "a control character (ESC)"
		case c < 0x20 || c == 0x7f:
			what = fmt.Sprintf("a control character (0x%02x)", c)
		case c == 0xc2 && i+1 < len(v) && v[i+1] >= 0x80 && v[i+1] < 0xa0:
			what = fmt.Sprintf("a control character (U+%04X)", v[i+1])
		}
		return fmt.Errorf("the authorization server issued %s with %s at byte %d: refused before caching (a token must be printable ASCII: a CR or LF would end the Authorization header, an ESC would reach the terminal)", name, what, i)
	}
	return nil
}
