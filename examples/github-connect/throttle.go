package main

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// signInThrottle slows password guessing at the sign-in page without letting
// anyone lock the real user out. Every attempt is charged before its password
// is checked, and refused (without checking it) when one of three gates is
// closed:
//
//   - an address and an account: after a few wrong passwords in a row from one
//     address for one account, the next waits, twice as long after each further
//     one (a person who mistyped waits a second; a guesser waits hours);
//   - an address: its attempts, whatever the accounts, come from a budget that
//     refills slowly (one address cannot try thousands of accounts);
//   - an account: its attempts from all addresses come from a budget too, so
//     that many addresses together cannot guess one password. When it is spent,
//     addresses that never signed in to the account wait for it to refill, but
//     an address the account signed in from before is only slowed (one attempt
//     every KnownPace), never refused: an attacker cannot lock the real user
//     out of an account by spending its budget.
//
// A successful sign-in gives its charge back and clears its address's run of
// wrong passwords. Wrong bearer tokens at /mcp are throttled by the address's
// gates the same way (tokens). What the throttle remembers is bounded (MaxEntries per
// kind, the least recently seen forgotten first, but for accounts: those that
// know no address of their user go first, the least spent first, so that
// trying many other accounts cannot refill an account under attack; MaxKnown
// addresses per account).
type signInThrottle struct {
	limits throttleLimits
	now    func() time.Time

	mu       sync.Mutex
	pairs    map[pairKey]*pairState
	addrs    map[string]*bucket
	accounts map[string]*accountState
}

// throttleLimits are the numbers of a signInThrottle.
type throttleLimits struct {
	// FreeFailures is how many wrong passwords in a row one address may
	// send for one account before it has to wait.
	FreeFailures int
	// FirstDelay is the wait after FreeFailures; each further wrong password
	// doubles it, up to MaxDelay.
	FirstDelay, MaxDelay time.Duration
	// ForgetAfter forgets an address's run of wrong passwords for an account
	// once it has sent none for this long.
	ForgetAfter time.Duration
	// AddressBurst attempts of one address, then one every AddressRefill.
	AddressBurst  int
	AddressRefill time.Duration
	// AccountBurst attempts for one account from addresses it never signed
	// in from, then one every AccountRefill.
	AccountBurst  int
	AccountRefill time.Duration
	// KnownPace is the least time between two attempts from an address the
	// account signed in from before, while the account's budget is spent.
	KnownPace time.Duration
	// MaxEntries bounds the addresses, accounts and address-account pairs
	// remembered; MaxKnown the addresses remembered per account.
	MaxEntries, MaxKnown int
}

// defaultThrottle is what the example server uses.
var defaultThrottle = throttleLimits{
	FreeFailures: 3, FirstDelay: time.Second, MaxDelay: 15 * time.Minute, ForgetAfter: time.Hour,
	AddressBurst: 30, AddressRefill: 30 * time.Second,
	AccountBurst: 50, AccountRefill: 30 * time.Second,
	KnownPace:  2 * time.Second,
	MaxEntries: 100_000, MaxKnown: 32,
}

type pairKey struct{ addr, account string }

// pairState is an address's run of wrong passwords for an account.
type pairState struct {
	failures int       // in a row, attempts in progress included
	last     time.Time // of the last attempt
}

// bucket is a budget of attempts that refills one at a time.
type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
	seen   time.Time
}

// accountState is an account's budget and the addresses it signed in from.
type accountState struct {
	budget bucket
	known  []knownAddr // most recent last
}

type knownAddr struct {
	addr string
	last time.Time // of the last attempt from it
}

func newSignInThrottle(l throttleLimits, now func() time.Time) *signInThrottle {
	if now == nil {
		now = time.Now
	}
	return &signInThrottle{limits: l, now: now, pairs: map[pairKey]*pairState{}, addrs: map[string]*bucket{}, accounts: map[string]*accountState{}}
}

// refill brings b up to now, at one token per every, to at most burst.
func (b *bucket) refill(now time.Time, burst int, every time.Duration) {
	if b.at.IsZero() {
		b.tokens, b.at = float64(burst), now
	}
	if now.After(b.at) {
		b.tokens = min(float64(burst), b.tokens+float64(now.Sub(b.at))/float64(every))
		b.at = now
	}
	b.seen = now
}

// until is how long b needs to hold one token.
func (b *bucket) until(every time.Duration) time.Duration {
	return time.Duration((1 - b.tokens) * float64(every))
}

// delay is the wait after failures wrong passwords in a row.
func (l throttleLimits) delay(failures int) time.Duration {
	if failures < l.FreeFailures {
		return 0
	}
	d := l.FirstDelay
	for range failures - l.FreeFailures {
		if d *= 2; d >= l.MaxDelay {
			return l.MaxDelay
		}
	}
	return d
}

// begin decides on an attempt from addr ("" when the server cannot tell) for
// account. When it may go on, begin charges it and returns done, to be called
// with whether the password was right; otherwise done is nil and wait says
// when to come back.
func (t *signInThrottle) begin(addr, account string) (done func(ok bool), wait time.Duration) {
	return t.decide(addr, pairKey{addr, account}, account, true)
}

// beginToken decides on a bearer token from addr as begin does, by the
// address's gates only: a token names no account whose budget could be
// spent, and a budget shared by all tokens would let an attacker lock every
// new address out.
func (t *signInThrottle) beginToken(addr string) (done func(ok bool), wait time.Duration) {
	return t.decide(addr, pairKey{addr: addr, account: bearerAccount}, "", false)
}

// bearerAccount is the account of bearer tokens in an address's run of wrong
// ones; no sign-in name can be it (the form is text).
const bearerAccount = "\x00bearer"

func (t *signInThrottle) decide(addr string, pk pairKey, account string, perAccount bool) (done func(ok bool), wait time.Duration) {
	now := t.now()
	l := t.limits
	t.mu.Lock()
	defer t.mu.Unlock()

	pair := t.pairs[pk]
	if pair != nil && now.Sub(pair.last) > l.ForgetAfter && pair.failures > 0 {
		pair.failures = 0
	}
	if pair != nil {
		if w := pair.last.Add(l.delay(pair.failures)).Sub(now); w > 0 {
			return nil, w
		}
	}
	ab := t.addrs[addr]
	if ab == nil {
		ab = &bucket{}
	}
	ab.refill(now, l.AddressBurst, l.AddressRefill)
	if ab.tokens < 1 {
		return nil, ab.until(l.AddressRefill)
	}
	acc := t.accounts[account]
	if acc == nil || !perAccount {
		acc = &accountState{} // a token's: no account, kept nowhere
	}
	acc.budget.refill(now, l.AccountBurst, l.AccountRefill)
	known := slices.IndexFunc(acc.known, func(k knownAddr) bool { return k.addr == addr })
	charged := false // against the account's budget
	switch {
	case !perAccount:
	case acc.budget.tokens >= 1:
		acc.budget.tokens--
		charged = true
	case known < 0:
		return nil, acc.budget.until(l.AccountRefill)
	default:
		if w := acc.known[known].last.Add(l.KnownPace).Sub(now); w > 0 {
			return nil, w
		}
	}
	// The attempt goes on: charge it.
	ab.tokens--
	if pair == nil {
		pair = &pairState{}
	}
	pair.failures++
	pair.last = now
	if known >= 0 {
		acc.known[known].last = now
	}
	if !perAccount {
		acc = nil
	}
	t.keep(pk, pair, addr, ab, account, acc)
	var once sync.Once
	return func(ok bool) {
		once.Do(func() { t.end(pk, account, charged, ok && perAccount, ok) })
	}, 0
}

// end records how an attempt went: known says whether its address becomes
// one the account signed in from.
func (t *signInThrottle) end(pk pairKey, account string, charged, known, ok bool) {
	if !ok {
		return // the charges stand; the pair's failure was counted
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pairs, pk)
	if ab := t.addrs[pk.addr]; ab != nil {
		ab.tokens = min(ab.tokens+1, float64(t.limits.AddressBurst))
	}
	acc := t.accounts[account]
	if acc == nil || !known {
		return
	}
	if charged {
		acc.budget.tokens = min(acc.budget.tokens+1, float64(t.limits.AccountBurst))
	}
	acc.known = slices.DeleteFunc(acc.known, func(k knownAddr) bool { return k.addr == pk.addr })
	acc.known = append(acc.known, knownAddr{addr: pk.addr, last: now})
	if over := len(acc.known) - t.limits.MaxKnown; over > 0 {
		acc.known = slices.Delete(acc.known, 0, over)
	}
}

// keep stores the states of an attempt, forgetting entries of a kind that is
// full (see signInThrottle).
func (t *signInThrottle) keep(pk pairKey, pair *pairState, addr string, ab *bucket, account string, acc *accountState) {
	if _, ok := t.pairs[pk]; !ok && len(t.pairs) >= t.limits.MaxEntries {
		evictFirst(t.pairs, func(a, b *pairState) int { return a.last.Compare(b.last) })
	}
	t.pairs[pk] = pair
	if _, ok := t.addrs[addr]; !ok && len(t.addrs) >= t.limits.MaxEntries {
		evictFirst(t.addrs, func(a, b *bucket) int { return a.seen.Compare(b.seen) })
	}
	t.addrs[addr] = ab
	if acc == nil {
		return
	}
	if _, ok := t.accounts[account]; !ok && len(t.accounts) >= t.limits.MaxEntries {
		// An account whose budget is spent, or that knows the addresses
		// its user signs in from, is what the throttle is for: forgetting
		// it would give a guesser a full budget again, and its user the
		// waits of a stranger. So accounts that know no address go first,
		// the least spent of them first (an attacker must spend as much
		// on every other account to push one out), then the oldest.
		now := t.now()
		left := func(a *accountState) float64 {
			return min(float64(t.limits.AccountBurst), a.budget.tokens+float64(now.Sub(a.budget.at))/float64(t.limits.AccountRefill))
		}
		evictFirst(t.accounts, func(a, b *accountState) int {
			if ka, kb := len(a.known) > 0, len(b.known) > 0; ka != kb {
				if ka {
					return 1
				}
				return -1
			}
			if la, lb := left(a), left(b); la != lb {
				if la > lb {
					return -1
				}
				return 1
			}
			return a.budget.seen.Compare(b.budget.seen)
		})
	}
	t.accounts[account] = acc
}

// tokens wraps an MCP handler behind auth.RequireBearerToken so that wrong
// bearer tokens from one address are throttled as wrong passwords are (by
// the address's gates, beginToken): a refused request gets 429 with
// Retry-After, and its token is not checked. verify is the handler's own
// verifier; the token is read from the header as the go-sdk reads it.
func (t *signInThrottle) tokens(h http.Handler, verify auth.TokenVerifier) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fields := strings.Fields(r.Header.Get("Authorization"))
		if len(fields) != 2 || strings.ToLower(fields[0]) != "bearer" {
			h.ServeHTTP(w, r) // no token: refused there, and no guess
			return
		}
		done, wait := t.beginToken(subject.Client(r.Context()))
		if done == nil {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			http.Error(w, fmt.Sprintf("too many wrong bearer tokens from your address; try again in %d seconds", secs), http.StatusTooManyRequests)
			return
		}
		_, err := verify(r.Context(), fields[1], r)
		done(err == nil)
		h.ServeHTTP(w, r)
	})
}

// evictFirst forgets the tenth of m (at least one) that comes first in the
// order of cmp.
func evictFirst[K comparable, V any](m map[K]V, cmp func(a, b V) int) {
	type entry struct {
		k K
		v V
	}
	all := make([]entry, 0, len(m))
	for k, v := range m {
		all = append(all, entry{k, v})
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp(a.v, b.v) })
	for _, e := range all[:max(1, len(all)/10)] {
		delete(m, e.k)
	}
}
