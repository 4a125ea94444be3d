// Package reqstate protects the requestState of a multi round-trip request.
//
// A server that answers tools/call, prompts/get or resources/read with an
// input_required result may hand the client a requestState, which the client
// sends back untouched with its answers. The state travels through the client,
// so the server must treat it as attacker-controlled input. A [Codec] makes
// that safe: in round 1, [Codec.Issue] seals a Go value into a state bound to
// the current request (method, tool/prompt name or resource URI, a digest of
// the canonical arguments), to the authenticated user and to an expiry; in
// round 2, [Open] checks all of that against the repeated request and returns
// the value.
//
//	// round 1
//	state, err := codec.Issue(req, deployState{Version: "2.4.1"}, nil)
//	// round 2
//	st, err := reqstate.Open[deployState](ctx, codec, req)
//	if err != nil {
//		return nil, nil, reqstate.ClientError(err)
//	}
//
// A codec works in one of two modes. [Sealed] (the default) encrypts the state
// with AES-256-GCM: the client can neither read nor change it. [Signed] adds an
// HMAC-SHA256 tag: the client can read the payload but not change it.
//
// Keys (keys.Key, the type package connect takes too) carry an id, so they
// can be rotated: the first key of [Options.Keys] seals, every listed key
// opens, and a key is retired by removing it from the list. A state issued
// with [IssueOptions].SingleUse can be opened once: its nonce is claimed in a
// replay.Store.
//
// Every refusal wraps one of the errors [ErrMissing], [ErrTooLarge],
// [ErrTampered], [ErrUnknownKey], [ErrExpired], [ErrClockSkew], [ErrOtherUser],
// [ErrOtherRequest] and [ErrReused], so a server can log what happened;
// [ClientError] turns any of them into the same JSON-RPC error for the client,
// which reveals nothing about which check failed.
package reqstate
