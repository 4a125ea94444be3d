// Package replay records one-time values (nonces) so that something meant to be
// used once is used at most once, even when many requests race for it.
//
// A [Store] has one operation, [Store.Claim]: the first claim of a nonce succeeds
// and every later claim of the same nonce fails with [ErrUsed] until the nonce's
// expiry has passed, after which the store may forget it. The reqstate package
// uses a Store to make a requestState single use.
//
// Two implementations live here: [Memory], for a single process, and [Bolt], a
// file that survives restarts. Other implementations (for example one backed by
// Redis, for several server instances) should pass replaytest.Run.
package replay
