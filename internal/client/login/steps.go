package login

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// The kinds of a Step.
const (
	// StepChallenge: the server refused a request and asked for a login.
	StepChallenge = "challenge"
	// StepCache: a login from the cache was taken up.
	StepCache = "cache"
	// StepDiscovery: a metadata document was fetched (protected resource
	// or authorization server).
	StepDiscovery = "discovery"
	// StepRegistration: the client registered itself (dynamic client
	// registration).
	StepRegistration = "registration"
	// StepAuthorization: the browser step, sent to the authorization
	// endpoint and back.
	StepAuthorization = "authorization"
	// StepToken: a token request (a code, client credentials or an
	// assertion traded for a token).
	StepToken = "token"
	// StepRefresh: a refresh token traded for a new access token.
	StepRefresh = "refresh"
	// StepRequest: any other request of a login.
	StepRequest = "request"
	// StepDone: the login ended with a token (StepFailed: without one).
	StepDone   = "done"
	StepFailed = "failed"
)

// Step is one step of a login as it happens, for a person to follow the
// login (mcp-tester ui lists them). It never holds a token, a code, a
// client secret or a query: addresses are their scheme, host and path.
type Step struct {
	// Kind is one of the Step constants.
	Kind string
	// What says what was done, in a sentence.
	What string
	// URL is the address the step went to: scheme, host and path.
	URL string
	// Status is the HTTP status of the step's response ("200 OK"), empty
	// when no request was made or none came back.
	Status string
	// Err is why the step failed, empty when it did not.
	Err string
}

// step tells OnStep of s.
func (l *Login) step(s Step) {
	if l.OnStep != nil {
		l.OnStep(s)
	}
}

// plainURL is u without its user information, query and fragment.
func plainURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// requestStep describes a request of a login to the authorization server
// or a metadata document, and its outcome.
func requestStep(req *http.Request, resp *http.Response, err error) Step {
	s := Step{Kind: StepRequest, URL: plainURL(req.URL), What: req.Method + " " + plainURL(req.URL)}
	path := req.URL.Path
	switch {
	case req.Method == http.MethodGet && strings.HasPrefix(path, "/.well-known/oauth-protected-resource"):
		s.Kind, s.What = StepDiscovery, "fetched the protected resource metadata"
	case req.Method == http.MethodGet && (strings.HasPrefix(path, "/.well-known/oauth-authorization-server") || strings.HasPrefix(path, "/.well-known/openid-configuration")):
		s.Kind, s.What = StepDiscovery, "fetched the authorization server metadata"
	case req.Method == http.MethodPost:
		media, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		switch media {
		case "application/json":
			s.Kind, s.What = StepRegistration, "registered the client (dynamic client registration)"
		case "application/x-www-form-urlencoded":
			s.Kind, s.What = grantStep(req)
		}
	}
	if resp != nil {
		s.Status = resp.Status
	}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// grantStep names a token request by its grant type, read from a copy of
// the request's form (the request is sent unchanged).
func grantStep(req *http.Request) (kind, what string) {
	grant := ""
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			var b strings.Builder
			buf := make([]byte, 4096)
			for b.Len() < 64<<10 {
				n, err := body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			body.Close()
			if form, err := url.ParseQuery(b.String()); err == nil {
				grant = form.Get("grant_type")
			}
		}
	}
	switch grant {
	case "refresh_token":
		return StepRefresh, "traded the refresh token (hidden) for a new access token"
	case "authorization_code":
		return StepToken, "traded the authorization code (hidden) for an access token"
	case "":
		return StepToken, "asked for a token"
	}
	return StepToken, fmt.Sprintf("asked for a token with the %s grant", grant)
}

// challengeStep describes a server's refusal that calls for a login.
func challengeStep(req *http.Request, resp *http.Response, bearer map[string]string) Step {
	what := "the server refused the request without a challenge to log in by"
	if bearer != nil {
		what = "the server asks for a login"
		if sc := bearer["scope"]; sc != "" {
			what += ", scope " + printable(sc)
		}
		if rm := bearer["resource_metadata"]; rm != "" {
			if u, err := url.Parse(rm); err == nil {
				what += ", its metadata at " + plainURL(u)
			}
		}
		if e := bearer["error"]; e != "" {
			what += " (" + printable(e) + ")"
		}
	}
	var u *url.URL
	if req != nil {
		u = req.URL
	}
	return Step{Kind: StepChallenge, What: what, URL: plainURL(u), Status: resp.Status}
}
