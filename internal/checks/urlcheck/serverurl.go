package urlcheck

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ServerURL checks the URL of an HTTP server, wherever one is accepted (a
// flag, a profile, mcp-tester.yml), and says what is wrong with it: a
// scheme other than http or https, no host, a port that is not a TCP port
// (1 to 65535), or text that does not read as a URL. The error holds no
// part of the URL, so that the caller names it as it shows it (credentials
// hidden).
func ServerURL(raw string) error {
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
