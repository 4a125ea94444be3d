package urlcheck

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// ServerURL checks the URL of an HTTP server, wherever one is accepted (a
// flag, a profile, mcp-tester.yml), and says what is wrong with it, the
// first thing a person would fix: nothing given, a space or a control
// character in it (where), a scheme other than http or https, no host, a
// port that is not a TCP port (1 to 65535), or other text that does not
// read as a URL. The error holds no part of the URL, so that the caller
// names it as it shows it (credentials hidden).
func ServerURL(raw string) error {
	if raw == "" {
		return errors.New("it is empty: give http://HOST:PORT/PATH")
	}
	if err := unwritten(raw); err != nil {
		return err
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		return errors.New("must start with http:// or https://")
	}
	authority := rest
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		authority = authority[i+1:]
	}
	host, port := authority, ""
	if i := strings.LastIndex(authority, ":"); i >= 0 && !strings.Contains(authority[i:], "]") {
		host, port = authority[:i], authority[i+1:]
		if port == "" {
			return errors.New("the port after the host's ':' is missing")
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] == '+' || port[0] == '-' {
			return fmt.Errorf("port %s is no TCP port (1 to 65535)", port)
		}
	}
	if host == "" || host == "[]" {
		return errors.New("it names no host")
	}
	if _, err := url.Parse(raw); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("it does not read as a URL: %v", err)
	}
	return nil
}

// unwritten refuses a URL that holds what a URL never holds as it is: a
// space (a space-like character) or a control character, saying which and
// at which character (from 1), which a person cannot see in the URL as
// shown.
func unwritten(raw string) error {
	i := 0
	for _, r := range raw {
		i++
		switch {
		case r == ' ':
			return fmt.Errorf("it holds a space at character %d: take it out (in a path or query, write it %%20)", i)
		case unicode.IsControl(r):
			return fmt.Errorf("it holds a control character (U+%04X) at character %d: take it out", r, i)
		case unicode.IsSpace(r):
			return fmt.Errorf("it holds a space character (U+%04X) at character %d: take it out", r, i)
		}
	}
	return nil
}
