package connect

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/askback/askback/internal/encoding/b64url"
	"github.com/askback/askback/internal/server/reqbody"
	"golang.org/x/oauth2"
)

// routes builds the handler: the link page, the button that starts the provider's flow,
// and the provider's callback. POSTs are checked against cross-origin requests.
func (c *Connector) routes() http.Handler {
	bp := c.base.EscapedPath()
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+bp+"/{provider}", c.serveLink)
	mux.HandleFunc("POST "+bp+"/{provider}", c.serveStart)
	mux.HandleFunc("GET "+bp+"/{provider}/callback", c.serveCallback)
	return http.NewCrossOriginProtection().Handler(mux)
}

// ServeHTTP serves the connect pages. Mount the connector at the path of
// [Options.BaseURL], without stripping the prefix:
//
//	mux.Handle("/connect/", connector)
func (c *Connector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mux.ServeHTTP(w, r)
}

func (c *Connector) fail(w http.ResponseWriter, status int, heading string, lines ...string) {
	render(w, status, page{Title: heading, Server: c.name, Heading: heading, Lines: lines})
}

// checkLink verifies the link and the browser user. It answers the request itself and
// returns ok=false when the flow must not go on; nothing is stored in that case.
func (c *Connector) checkLink(w http.ResponseWriter, r *http.Request, tok string) (p *Provider, cl *linkClaims, user string, ok bool) {
	p, err := c.provider(r.PathValue("provider"))
	if err != nil {
		c.fail(w, http.StatusNotFound, "Unknown service",
			"This server cannot connect that service. Go back to your assistant and try again.")
		return nil, nil, "", false
	}
	cl, k, err := c.parseLinkToken(tok, p.Name)
	switch {
	case errors.Is(err, errLinkExpired):
		c.log.Info("connect: expired link", "provider", p.Name)
		c.fail(w, http.StatusBadRequest, "This link has expired",
			"Links to connect an account are valid for a few minutes only.",
			"Go back to your assistant and run the request again: it will give you a new link.")
		return nil, nil, "", false
	case err != nil:
		c.log.Warn("connect: invalid link", "provider", p.Name, "err", err)
		c.fail(w, http.StatusBadRequest, "This link is not valid",
			"The link was changed or is incomplete, so nothing was connected.",
			"Go back to your assistant and run the request again: it will give you a new link.")
		return nil, nil, "", false
	}
	user, err = c.auth.User(r)
	if err != nil {
		c.log.Error("connect: browser session", "err", err)
		c.fail(w, http.StatusInternalServerError, "Could not check your sign-in",
			"Try again in a moment.")
		return nil, nil, "", false
	}
	if user == "" {
		c.auth.SignIn(w, r, r.URL.Path+"?"+url.Values{"t": {tok}}.Encode())
		return nil, nil, "", false
	}
	if subtle.ConstantTimeCompare([]byte(c.userHash(k, user)), []byte(cl.UserHash)) != 1 {
		c.log.Warn("connect: link opened by another user; refused", "provider", p.Name, "browser_user", user)
		c.fail(w, http.StatusForbidden, "This link is for a different account",
			"You are signed in to "+c.name+" as "+user+", but this link was made for someone else. Nothing was connected and nothing was stored.",
			"If someone sent you this link, do not use it. To connect your own "+p.Title+" account, ask your own assistant.")
		return nil, nil, "", false
	}
	return p, cl, user, true
}

// serveLink is the page the link opens: it shows who is about to connect what, and a
// button that starts the provider's flow.
func (c *Connector) serveLink(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("t")
	p, _, user, ok := c.checkLink(w, r, tok)
	if !ok {
		return
	}
	render(w, http.StatusOK, page{
		Title:   "Connect " + p.Title,
		Server:  c.name,
		Heading: "Connect your " + p.Title + " account",
		Lines: []string{
			"You are signed in to " + c.name + " as " + user + ".",
			"Continue to let " + c.name + " use your " + p.Title + " account for you. You will approve this at " + p.Title + ".",
		},
		Form: &pageForm{Action: r.URL.Path, Name: "t", Value: tok, Button: "Continue to " + p.Title},
	})
}

// maxFormBytes bounds the form the start page posts: one link.
const maxFormBytes = 4096

// serveStart checks the link again, remembers the flow in a sealed cookie and sends the
// browser to the provider with PKCE and state.
func (c *Connector) serveStart(w http.ResponseWriter, r *http.Request) {
	form, err := reqbody.Form(w, r, reqbody.Limits{Max: maxFormBytes})
	if err != nil {
		c.fail(w, reqbody.Status(err), "Could not read the form", "Go back to your assistant and follow the link again.")
		return
	}
	p, cl, user, ok := c.checkLink(w, r, form.Get("t"))
	if !ok {
		return
	}
	state := make([]byte, 32)
	if _, err := rand.Read(state); err != nil {
		c.fail(w, http.StatusInternalServerError, "Could not start", "Try again in a moment.")
		return
	}
	fs := flowState{
		State:    b64url.Encode(state),
		Verifier: oauth2.GenerateVerifier(),
		User:     user,
		Link:     cl.Nonce,
		Session:  c.sessionHash(c.keys.signing, r),
		Expires:  c.now().Add(c.flowTTL).Unix(),
	}
	sealed, err := c.sealFlow(p.Name, fs)
	if err != nil {
		c.log.Error("connect: seal flow", "err", err)
		c.fail(w, http.StatusInternalServerError, "Could not start", "Try again in a moment.")
		return
	}
	c.setFlowCookie(w, p.Name, sealed)
	http.Redirect(w, r, p.OAuth2.AuthCodeURL(fs.State, oauth2.S256ChallengeOption(fs.Verifier)), http.StatusSeeOther)
}

// sameBrowserUser reports whether the browser user, in the same browser
// session, is still the user the flow fs was started for; if not, it
// answers w with why nothing was stored.
func (c *Connector) sameBrowserUser(w http.ResponseWriter, r *http.Request, p *Provider, fs *flowState, fk *derivedKey, restart string) bool {
	user, err := c.auth.User(r)
	if err != nil {
		c.log.Error("connect: browser session", "err", err)
		c.fail(w, http.StatusInternalServerError, "Could not check your sign-in", restart)
		return false
	}
	if user == "" || user != fs.User {
		c.log.Warn("connect: browser user changed during the flow; refused", "provider", p.Name)
		c.fail(w, http.StatusForbidden, "You are signed in as someone else now",
			"This connection was started for another account of "+c.name+". Nothing was stored.", restart)
		return false
	}
	if subtle.ConstantTimeCompare([]byte(c.sessionHash(fk, r)), []byte(fs.Session)) != 1 {
		c.log.Warn("connect: callback in another browser session; refused", "provider", p.Name)
		c.fail(w, http.StatusForbidden, "This sign-in belongs to another session",
			"The connection was started in another sign-in to "+c.name+". Nothing was stored.", restart)
		return false
	}
	return true
}

// providerRefused answers w when the provider answered the callback with
// the error e instead of a code.
func (c *Connector) providerRefused(w http.ResponseWriter, p *Provider, e, restart string) {
	c.log.Info("connect: provider refused", "provider", p.Name, "error", e)
	if e == "access_denied" {
		c.fail(w, http.StatusOK, "Not connected",
			"You did not allow access at "+p.Title+", so nothing was connected.",
			"Go back to your assistant; it can ask again when you want to connect.")
		return
	}
	c.fail(w, http.StatusBadGateway, "Not connected",
		p.Title+" could not complete the request ("+e+"). Nothing was stored.", restart)
}

// serveCallback finishes the flow: the state must match the one sealed in this browser's
// cookie, the browser user must still be the flow's user, and the code must exchange
// (with the PKCE verifier) for a token, which is then stored for that user.
func (c *Connector) serveCallback(w http.ResponseWriter, r *http.Request) {
	p, err := c.provider(r.PathValue("provider"))
	if err != nil {
		c.fail(w, http.StatusNotFound, "Unknown service",
			"This server cannot connect that service. Go back to your assistant and try again.")
		return
	}
	restart := "Go back to your assistant and run the request again to get a new link."
	q := r.URL.Query()
	cookie, err := r.Cookie(c.cookieName(p.Name))
	var fs *flowState
	var fk *derivedKey
	if err == nil {
		fs, fk, err = c.openFlow(p.Name, cookie.Value)
	}
	if err != nil {
		c.log.Warn("connect: callback without a valid flow cookie; refused", "provider", p.Name)
		c.fail(w, http.StatusBadRequest, "This sign-in was not started here",
			"The answer from "+p.Title+" does not belong to a connection started in this browser, or it took too long. Nothing was stored.",
			restart)
		return
	}
	// From here on the flow is used up, whatever happens.
	c.clearFlowCookie(w, p.Name)
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(fs.State)) != 1 {
		c.log.Warn("connect: callback state mismatch; refused", "provider", p.Name)
		c.fail(w, http.StatusBadRequest, "This answer does not match your request",
			"The answer from "+p.Title+" carries a different request than the one started in this browser. Nothing was stored.",
			restart)
		return
	}
	if !c.sameBrowserUser(w, r, p, fs, fk, restart) {
		return
	}
	if e := q.Get("error"); e != "" {
		c.providerRefused(w, p, e, restart)
		return
	}
	code := q.Get("code")
	if code == "" {
		c.fail(w, http.StatusBadRequest, "Not connected",
			"The answer from "+p.Title+" carries no authorization code. Nothing was stored.", restart)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), oauth2.HTTPClient, c.client), 30*time.Second)
	defer cancel()
	tok, err := p.OAuth2.Exchange(ctx, code, oauth2.VerifierOption(fs.Verifier))
	if err != nil {
		c.log.Warn("connect: code exchange failed", "provider", p.Name, "err", describeExchangeError(err))
		c.fail(w, http.StatusBadGateway, "Not connected",
			p.Title+" did not accept the sign-in (the code may have been used already or expired). Nothing was stored.",
			restart)
		return
	}
	if err := c.store.Put(r.Context(), fs.User, p.Name, tok); err != nil {
		c.log.Error("connect: store token", "provider", p.Name, "err", err)
		c.fail(w, http.StatusInternalServerError, "Not connected",
			"Your "+p.Title+" account was approved, but "+c.name+" could not save the connection. Try again later.")
		return
	}
	c.log.Info("connect: connected", "provider", p.Name, "user", fs.User)
	render(w, http.StatusOK, page{
		Title:   p.Title + " connected",
		Server:  c.name,
		Heading: "Connected — return to your assistant",
		Lines: []string{
			"Your " + p.Title + " account is now connected to " + c.name + " for " + fs.User + ".",
			"You can close this tab and go back to your assistant; it will continue when you retry.",
		},
		OK: true,
	})
}

// describeExchangeError keeps the provider's error code and drops anything else the
// response may carry.
func describeExchangeError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "provider error " + re.ErrorCode
		}
		if re.Response != nil {
			return "provider status " + re.Response.Status
		}
	}
	return err.Error()
}
