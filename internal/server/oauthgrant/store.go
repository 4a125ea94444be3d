// Package oauthgrant is what the project's OAuth authorization servers (the
// authorization server of examples/protected, internal/testsupport/fixtures/authserver,
// and the provider of examples/github-connect, fakegithub) keep of their
// grants, and the one rule by which they grant a scope: a bounded token
// store for github.com/go-oauth2/oauth2/v4 that holds every grant to the
// scope its user consented to (a refresh narrows it, never widens it), and
// [Scope], which checks a requested scope against the scopes a server knows
// and the scope a request may have.
package oauthgrant

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/models"
)

// Defaults of the token store's bounds.
const (
	// DefaultMaxTokens bounds the grants (an authorization code, or an
	// access token with its refresh token) the server keeps in all.
	DefaultMaxTokens = 10_000
	// DefaultMaxTokensPerUser bounds the grants of one user (or, for
	// client credentials, of one client): a new one beyond it ends that
	// user's oldest.
	DefaultMaxTokensPerUser = 32
)

// ErrTooMany is the token store's refusal when it is full of grants that
// have not expired: temporarily_unavailable.
var ErrTooMany = errors.New("the authorization server holds as many tokens as it may; try again later")

// ErrBeyondConsent is the token store's refusal of a token whose scope is
// wider than the scope its user consented to (a refresh that asked for
// more, past every check in front): invalid_scope.
var ErrBeyondConsent = errors.New("the scope asked for is wider than the scope granted")

// consentedKey is the extension field in which a grant keeps the scope its
// user consented to, from its authorization code (or its client
// credentials) to every token refreshed from it.
const consentedKey = "oauthgrant.consented_scope"

// Consented returns the scope the user of ti's grant consented to: the
// scope of its authorization code (or client credentials request), kept
// across refreshes, which may narrow a token's scope but never widen it;
// ti's own scope for a token the store did not keep.
func Consented(ti oauth2.TokenInfo) string {
	if et, ok := ti.(oauth2.ExtendableTokenInfo); ok {
		if ext := et.GetExtension(); ext != nil && len(ext[consentedKey]) == 1 {
			return ext[consentedKey][0]
		}
	}
	return ti.GetScope()
}

// Store keeps the grants in memory, bounded: each lives until its last
// token expires or is removed, one user (or machine client) holds at most
// maxPerOwner of them (a new one ends the owner's oldest, so that only the
// owner can end their own logins), and the store holds at most max (a new
// one beyond is refused, [ErrTooMany]). Since every grant needs a sign-in,
// the number of users bounds it before max does. Every grant keeps the
// scope its user consented to ([Consented]); a token with a wider scope is
// refused ([ErrBeyondConsent]). Make it with [NewStore]; it implements
// oauth2.TokenStore.
type Store struct {
	now              func() time.Time
	max, maxPerOwner int
	// OnHold and OnRelease, if set before the store is used, hear that a
	// grant of the client began, ended.
	OnHold, OnRelease func(clientID string)

	mu        sync.Mutex
	keys      map[string]*grant   // code, access and refresh tokens → their grant
	owners    map[string][]*grant // the live grants of each owner, oldest first
	live      int
	lastSweep time.Time
}

// grant is one stored token info and the keys that still reach it.
type grant struct {
	info    models.Token
	owner   string
	keys    []string
	expires time.Time
}

// NewStore returns a store of at most max grants (DefaultMaxTokens when not
// positive), maxPerOwner of one owner (DefaultMaxTokensPerUser), on the
// clock now (time.Now when nil).
func NewStore(now func() time.Time, max, maxPerOwner int) *Store {
	if max <= 0 {
		max = DefaultMaxTokens
	}
	if maxPerOwner <= 0 {
		maxPerOwner = DefaultMaxTokensPerUser
	}
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, max: max, maxPerOwner: maxPerOwner, keys: map[string]*grant{}, owners: map[string][]*grant{}}
}

// Len returns the number of live grants.
func (ts *Store) Len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.live
}

// Create implements oauth2.TokenStore.
func (ts *Store) Create(_ context.Context, info oauth2.TokenInfo) error {
	g := &grant{info: copyToken(info)}
	t := &g.info
	if c := t.Extension[consentedKey]; len(c) != 1 {
		t.Extension.Set(consentedKey, t.Scope) // a new grant: what its user consented to
	} else if !Within(t.Scope, c[0]) {
		return ErrBeyondConsent
	}
	g.owner = t.UserID
	if g.owner == "" {
		g.owner = "client:" + t.ClientID
	}
	if t.Code != "" {
		g.keys = []string{t.Code}
		g.expires = expiry(t.CodeCreateAt, t.CodeExpiresIn)
	} else {
		g.keys = []string{t.Access}
		g.expires = expiry(t.AccessCreateAt, t.AccessExpiresIn)
		if t.Refresh != "" {
			g.keys = append(g.keys, t.Refresh)
			g.expires = later(g.expires, expiry(t.RefreshCreateAt, t.RefreshExpiresIn))
		}
	}
	var released []string
	ts.mu.Lock()
	now := ts.now()
	if now.Sub(ts.lastSweep) > time.Minute || ts.live >= ts.max {
		released = ts.sweepLocked(now)
	}
	mine := ts.owners[g.owner]
	for _, old := range mine {
		if !now.Before(old.expires) {
			released = append(released, ts.dropLocked(old))
		}
	}
	for len(ts.owners[g.owner]) >= ts.maxPerOwner {
		released = append(released, ts.dropLocked(ts.owners[g.owner][0]))
	}
	if ts.live >= ts.max {
		ts.mu.Unlock()
		ts.release(released)
		return ErrTooMany
	}
	for _, k := range g.keys {
		if old := ts.keys[k]; old != nil {
			released = append(released, ts.dropLocked(old))
		}
		ts.keys[k] = g
	}
	ts.owners[g.owner] = append(ts.owners[g.owner], g)
	ts.live++
	ts.mu.Unlock()
	if ts.OnHold != nil {
		ts.OnHold(t.ClientID)
	}
	ts.release(released)
	return nil
}

// release tells onRelease of the clients of ended grants.
func (ts *Store) release(clients []string) {
	if ts.OnRelease == nil {
		return
	}
	for _, c := range clients {
		ts.OnRelease(c)
	}
}

// sweepLocked drops every expired grant.
func (ts *Store) sweepLocked(now time.Time) []string {
	ts.lastSweep = now
	var released []string
	for _, gs := range ts.owners {
		for _, g := range slices.Clone(gs) {
			if !now.Before(g.expires) {
				released = append(released, ts.dropLocked(g))
			}
		}
	}
	return released
}

// dropLocked ends a grant: none of its keys reach it any more. It returns
// the grant's client.
func (ts *Store) dropLocked(g *grant) string {
	for _, k := range g.keys {
		if ts.keys[k] == g {
			delete(ts.keys, k)
		}
	}
	g.keys = nil
	list := ts.owners[g.owner]
	if i := slices.Index(list, g); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(ts.owners, g.owner)
	} else {
		ts.owners[g.owner] = list
	}
	ts.live--
	return g.info.ClientID
}

// remove takes key away from its grant, which ends when no key is left.
func (ts *Store) remove(key string) error {
	ts.mu.Lock()
	g := ts.keys[key]
	if g == nil {
		ts.mu.Unlock()
		return nil
	}
	delete(ts.keys, key)
	g.keys = slices.DeleteFunc(g.keys, func(k string) bool { return k == key })
	var released []string
	if len(g.keys) == 0 {
		released = append(released, ts.dropLocked(g))
	}
	ts.mu.Unlock()
	ts.release(released)
	return nil
}

// get returns a copy of the grant key reaches, nil when none does or it
// expired.
func (ts *Store) get(key string) (oauth2.TokenInfo, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	g := ts.keys[key]
	if g == nil || !ts.now().Before(g.expires) {
		return nil, nil
	}
	c := g.info
	c.Extension = cloneValues(c.Extension)
	return &c, nil
}

// RemoveByCode implements oauth2.TokenStore.
func (ts *Store) RemoveByCode(_ context.Context, code string) error { return ts.remove(code) }

// RemoveByAccess implements oauth2.TokenStore.
func (ts *Store) RemoveByAccess(_ context.Context, access string) error {
	return ts.remove(access)
}

// RemoveByRefresh implements oauth2.TokenStore.
func (ts *Store) RemoveByRefresh(_ context.Context, refresh string) error {
	return ts.remove(refresh)
}

// GetByCode implements oauth2.TokenStore.
func (ts *Store) GetByCode(_ context.Context, code string) (oauth2.TokenInfo, error) {
	return ts.get(code)
}

// GetByAccess implements oauth2.TokenStore.
func (ts *Store) GetByAccess(_ context.Context, access string) (oauth2.TokenInfo, error) {
	return ts.get(access)
}

// GetByRefresh implements oauth2.TokenStore.
func (ts *Store) GetByRefresh(_ context.Context, refresh string) (oauth2.TokenInfo, error) {
	return ts.get(refresh)
}

// copyToken returns a copy of info that the caller cannot change.
func copyToken(info oauth2.TokenInfo) models.Token {
	var t models.Token
	if m, ok := info.(*models.Token); ok {
		t = *m
	} else if b, err := json.Marshal(info); err == nil {
		_ = json.Unmarshal(b, &t)
	}
	t.Extension = cloneValues(t.Extension)
	return t
}

// cloneValues copies v, never nil.
func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v)+1)
	for k, vs := range v {
		c[k] = slices.Clone(vs)
	}
	return c
}

// maxGrantLife is the life of a token that names none.
const maxGrantLife = 24 * time.Hour

// expiry is when a token made at created that lives for life expires.
func expiry(created time.Time, life time.Duration) time.Time {
	if life <= 0 || life > maxGrantLife {
		life = maxGrantLife
	}
	return created.Add(life)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
