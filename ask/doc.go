// Package ask helps a server handler ask the user only what the client can
// show, and read the answers safely.
//
// [Modes] says how the client of this request may be asked: by form, by URL,
// or not at all. On protocol 2026-07-28 that comes from the request's own
// _meta (io.modelcontextprotocol/clientCapabilities); on 2025-11-25 and older
// from the capabilities the client declared when the session was initialised.
// [Permits] and [Filter] apply the same rule to whole input requests,
// including sampling and roots.
//
// [Lookup] reads the answer to one question from a request's inputResponses:
// a missing key, a nil value, an answer of another kind or an unknown action
// all read as "not answered", so the handler asks again rather than failing,
// and answers to keys it did not ask are simply never looked up. [Pending]
// lists the questions still unanswered. A decline or a cancel is the user's
// legitimate choice, not an error: [Stopped] makes the normal result for it.
package ask
