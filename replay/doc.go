// Package replay records one-time values (nonces) so that something meant to be
// used once is used at most once, even when many requests race for it.
//
// A [Store] has one operation, [Store.Claim]: the first claim of a nonce succeeds
// and every later claim of the same nonce fails with [ErrUsed] until the nonce's
// expiry has passed, after which the store may forget it. The reqstate package
// uses a Store to make a requestState single use.
//
// Two implementations live here: [Memory], for a single process, and [Bolt], a
// file that survives restarts; replay/redisstore keeps nonces in Redis, for
// several server instances. Other implementations should pass replaytest.Run.
//
// Every store is bounded in total (MaxEntries) and, so that one user cannot
// fill it and have everyone else's claims refused, per user (MaxPerUser;
// [DefaultMaxPerUser] is a sixteenth of MaxEntries): the user is told to the
// store through the optional [UserStore] interface, whose ClaimUser takes
// the user next to the nonce, and refused with [ErrUserFull]. It is optional,
// rather than a parameter added to [Store.Claim], so that a Store written
// elsewhere keeps compiling and working: [ClaimUser], which reqstate calls,
// falls back to Claim for a store without it. Anonymous callers (user "")
// share one allowance; a nonce claimed with Claim counts towards the total
// only. replaytest.RunUser checks a UserStore's per-user bound.
//
// Users at many addresses, each within its share, can together fill a
// store, and a live nonce is never forgotten to make room (it could then be
// used again). So a tenth of every store ([ReservedEntries]) is kept for
// the claims of users holding few live nonces ([FewNonces]: a 256th of
// MaxPerUser): a newcomer still opens a single-use state while users at
// many addresses hold all the rest, and it takes many more addresses again
// to fill the reserve. replaytest.RunReserve checks it.
package replay
