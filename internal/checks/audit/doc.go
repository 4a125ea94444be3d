// Package audit checks from the outside that an MCP server asks its
// questions within the rules of the protocol (2026-07-28 multi round-trip
// requests and elicitation), and, for older servers, the rules that still
// apply.
//
// [Run] connects to a server, lists its tools, prompts and resources, calls
// each one that is not destructive (or that the caller explicitly allows)
// and, for each that asks, drives the rounds itself with manipulated
// parameters: tampered or replayed requestState, a second identity, a client
// that declares less than everything, decline and cancel, a missing or an
// unknown answer. Every probe runs on a fresh go-sdk client session with
// explicit capabilities and the SDK's automatic rounds turned off, and every
// loop is bounded by a number of rounds and a time limit.
//
// The [Report] lists, per tool, prompt or resource, each [Rule] as passed,
// failed or not applicable, with the request sent and the response received
// as evidence for each failure, and renders as text, JSON or JUnit XML.
package audit
