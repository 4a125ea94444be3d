// Package asktest tests an MCP server that asks its user questions, from
// go test, the way net/http/httptest tests a handler: a few lines per test,
// nothing to start by hand, everything closed when the test ends.
//
// A [Client] reaches the server in memory ([Server]: an *mcp.Server of the
// go-sdk, no port, no process), as a command ([Command]: stdio) or at a URL
// ([URL]: Streamable HTTP), speaking one protocol era ([Modern],
// 2026-07-28, or [Legacy], 2025-11-25) or each in turn ([EachEra]). It is
// mcp-tester's own client: the same session drives the rounds of
// input_required results, answers elicitation/create requests, follows
// tasks and checks every question against what it declared and the form
// subset.
//
// A call is given its answers up front ([Accept], [Decline], [Cancel],
// [OpenURL], [Reply]; for one question key with [Answer.For], for one
// round with [Answer.InRound]) or answered by a function that sees each
// question ([AnswerFunc]). Its [Result] holds the result, the rounds and
// every question asked with the answer it got. A question nobody answered
// fails the test with the question (mcp-tester's --strict), and so does an
// answer no question used: a server that stops asking fails.
//
// [RunScripts] runs .mcp scripts (the language of mcp-tester test, see
// docs/scripts.md in the module) as subtests, their failures at FILE:LINE;
// go test -update rewrites the expected values of the checks that failed,
// as mcp-tester test --update does. [Audit] runs mcp-tester audit's rules
// of asking against the server: each finding fails the test with the rule
// and its evidence. [NewStandIn] serves a recording of a server
// (mcp-tester proxy) as that server, to test a Go client.
//
// Everything a test opens is closed by t.Cleanup, and the test fails when
// something it started is still running then: a call, or a session of an
// in-memory server whose handler did not return. Nothing sleeps: the calls
// are bounded by the test's own deadline (go test -timeout), and in-memory
// servers work inside testing/synctest bubbles, where the polling of tasks
// runs on the bubble's clock ([Options.TaskSleep] replaces it elsewhere).
package asktest
