package connect

import "net/http"

// BrowserAuth is the server's own sign-in for browsers: a session cookie set by the
// server's sign-in page, or by its MCP authorization server. The connect page uses it to
// learn who opened a link; the user it reports must be the same identifier that MCP
// authorization puts in TokenInfo.UserID for that person.
type BrowserAuth interface {
	// User returns the server user signed in to the browser that sent r, or "" when
	// nobody is. An error means the session could not be checked.
	User(r *http.Request) (string, error)
	// SignIn answers r by sending the browser to the server's sign-in, which returns
	// it to returnTo (a path and query on this server) once signed in.
	SignIn(w http.ResponseWriter, r *http.Request, returnTo string)
}

// SessionBinder is implemented by a [BrowserAuth] that can name the browser session of a
// request (its session id, or anything unique to that sign-in). The connector then binds
// the provider flow to that session as well as to the user: a callback is accepted only
// in the session that started the flow, not in another sign-in of the same user.
type SessionBinder interface {
	// Session returns an identifier of the browser session of r, or "" when r has
	// none. It is hashed before use and never leaves the server.
	Session(r *http.Request) string
}
