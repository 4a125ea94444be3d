package asktest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
	"github.com/askback/askback/endpoint"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// In these examples t is a stand-in for the test's *testing.T that prints
// what the test reports: PASS, or FAIL and why.

// A test of a server that asks, in both eras: the answers are given to
// the call, and the result and the questions asked are there to check.
func Example() {
	run("TestDeploy", func(t *T) {
		asktest.EachEra(t, func(t *T, era asktest.Era) {
			c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: era})
			r := c.CallTool("deploy", map[string]any{"service": "web"},
				asktest.Accept(map[string]any{"environment": "production", "confirm": true}))
			if got, want := r.Text(), "Rolling out web 2.4.1 to production."; got != want {
				t.Errorf("deploy: %q, want %q", got, want)
			}
			fmt.Printf("%s: %d round(s), asked %q via %s\n", era, r.Rounds, r.Questions[0].Message, r.Questions[0].Via)
		})
	}).print()
	// Output:
	// 2026-07-28: 2 round(s), asked "Roll out web version 2.4.1 – where to?" via input_required
	// 2025-11-25: 1 round(s), asked "Roll out web version 2.4.1 – where to?" via elicitation/create
	// PASS
}

// A server that stops asking fails the test: the answer given is not
// used.
func Example_misbehaving() {
	run("TestDeploy", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{noAsk: true})), nil)
		c.CallTool("deploy", map[string]any{"service": "web"}, asktest.Decline())
	}).print()
	// Output:
	// FAIL
	// CallTool("deploy"): the answer decline was not used: no question it fits was asked
	//   the server asked no question
}

// A question nobody answered fails the test, naming it.
func ExampleNewClient() {
	run("TestDeploy", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), nil)
		c.CallTool("deploy", map[string]any{"service": "web"})
	}).print()
	// Output:
	// FAIL
	// CallTool("deploy"): tools/call "deploy": no answer was given for question "target"; give the call an answer for it (asktest.Accept, Decline, Cancel, OpenURL, Reply) or an asktest.AnswerFunc (nothing more was sent: the call stays unfinished after 1 request(s))
	//   the question: "target" (round 1, form environment, confirm): "Roll out web version 2.4.1 – where to?" → no answer
}

// Each case of a table test runs once per era.
func ExampleEachEra() {
	run("TestDeploy", func(t *T) {
		for _, tc := range []struct {
			answer asktest.Answer
			want   string
		}{
			{asktest.Decline(), "Deployment not started (decline)."},
			{asktest.Accept(map[string]any{"confirm": false}), "No deployment without confirmation."},
		} {
			asktest.EachEra(t, func(t *T, era asktest.Era) {
				c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: era})
				fmt.Printf("%s %s: %s\n", era, tc.answer, c.CallTool("deploy", web, tc.answer).Text())
			})
		}
	}).print()
	// Output:
	// 2026-07-28 decline: Deployment not started (decline).
	// 2025-11-25 decline: Deployment not started (decline).
	// 2026-07-28 accept {"confirm":false}: No deployment without confirmation.
	// 2025-11-25 accept {"confirm":false}: No deployment without confirmation.
	// PASS
}

// An AnswerFunc sees each question and answers it.
func ExampleAnswerFunc() {
	run("TestDeploy", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), nil)
		r := c.CallTool("deploy", web, asktest.AnswerFunc(func(q asktest.Question) asktest.Answer {
			fmt.Printf("asked %q in round %d, a %s of %d fields\n", q.Message, q.Round, q.Kind, len(q.Form.Fields))
			return asktest.Accept(map[string]any{"confirm": true}) // staging, the form's default
		}))
		fmt.Println(r.Text())
		fmt.Println(r.Questions[0].Answer.Content)
	}).print()
	// Output:
	// asked "Roll out web version 2.4.1 – where to?" in round 1, a form of 2 fields
	// Rolling out web 2.4.1 to staging.
	// map[confirm:true environment:staging]
	// PASS
}

// An answer for one question key, and one for one round: in 2026-07-28
// the deploy asks in round 1 and answers in round 2.
func ExampleAnswer_For() {
	run("TestDeploy", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: asktest.Modern})
		fmt.Println(c.CallTool("deploy", web, asktest.Cancel().For("target").InRound(1)).Text())
	}).print()
	// Output:
	// Deployment not started (cancel).
	// PASS
}

// A model reply answers a request for sampling, for a client that
// declares it.
func ExampleReply() {
	run("TestSummarize", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Sampling: true})
		fmt.Println(c.CallTool("summarize", map[string]any{"text": "a long story"}, asktest.Reply("It is long.")).Text())
	}).print()
	// Output:
	// Summary: It is long.
	// PASS
}

// Consent to open the link of a URL question.
func ExampleOpenURL() {
	run("TestSignIn", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{askURL: true})), nil)
		r := c.CallTool("deploy", web, asktest.OpenURL())
		fmt.Println(r.Questions[0].URL, "→", r.Questions[0].Answer.Action)
	}).print()
	// Output:
	// https://example.test/sign-in → accept
	// PASS
}

// A call that is to fail returns its error.
func ExampleWantError() {
	run("TestUnknownTool", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), nil)
		fmt.Println(c.CallTool("undeploy", nil, asktest.WantError()).Err)
	}).print()
	// Output:
	// tools/call "undeploy": unknown tool "undeploy"
	// PASS
}

// A tool that reports its failure with an isError result ends the call
// with an error too: unwanted, it fails the test; wanted, Err names the
// tool and its text, and Tool holds the result.
func ExampleWantError_isError() {
	run("TestRollback", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{fails: "Nothing to roll back."})), nil)
		r := c.CallTool("rollback", web, asktest.Accept(map[string]any{"sure": true}), asktest.WantError())
		fmt.Println(r.Err)
		fmt.Println(r.Tool.IsError, r.Text())
	}).print()
	run("TestRollback", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{fails: "Nothing to roll back."})), nil)
		c.CallTool("rollback", web, asktest.Accept(map[string]any{"sure": true}))
	}).print()
	// Output:
	// tools/call "rollback": the tool reported an error (isError): Nothing to roll back.
	// true Nothing to roll back.
	// PASS
	// FAIL
	// CallTool("rollback"): tools/call "rollback": the tool reported an error (isError): Nothing to roll back.
}

// A prompt that asks.
func ExampleClient_GetPrompt() {
	run("TestGreet", func(t *T) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), nil)
		fmt.Println(c.GetPrompt("greet", nil, asktest.Accept(map[string]any{"name": "Ada"})).Text())
	}).print()
	// Output:
	// Hello, Ada.
	// PASS
}

// A stdio server started as a command: here the test binary, which serves
// the test server when told to.
func ExampleCommand() {
	run("TestDeploy", func(t *T) {
		c := asktest.NewClient(t, asktest.Command(os.Args[0], serveEnv+"=1"), nil)
		fmt.Println(c.CallTool("deploy", web, asktest.Decline()).Text())
	}).print()
	// Output:
	// Deployment not started (decline).
	// PASS
}

// A server over Streamable HTTP, for both eras through endpoint.
func ExampleURL() {
	run("TestDeploy", func(t *T) {
		srv := newServer(broken{})
		web := httptest.NewServer(endpoint.New(func(*http.Request) *mcp.Server { return srv }, nil))
		defer web.Close()
		asktest.EachEra(t, func(t *T, era asktest.Era) {
			c := asktest.NewClient(t, asktest.URL(web.URL), &asktest.Options{Era: era})
			fmt.Println(era, c.CallTool("deploy", map[string]any{"service": "api"}, asktest.Decline()).Text())
		})
	}).print()
	// Output:
	// 2026-07-28 Deployment not started (decline).
	// 2025-11-25 Deployment not started (decline).
	// PASS
}

// The .mcp scripts of a folder, each a subtest: a server that no longer
// asks fails their steps, each at its FILE:LINE.
func ExampleRunScripts() {
	run("TestScripts", func(t *T) {
		asktest.RunScripts(t, asktest.Server(newServer(broken{})), "testdata/scripts/*.mcp", nil)
	}).print()
	ft := run("TestScripts", func(t *T) {
		asktest.RunScripts(t, asktest.Server(newServer(broken{noAsk: true})), "testdata/scripts/deploy.mcp", nil)
	})
	fmt.Println(strings.Join(strings.Split(ft.Errors(), "\n")[:3], "\n"))
	// Output:
	// PASS
	// deploy: testdata/scripts/deploy.mcp:2: elicit_response accept '{"environment": "production", "confirm": true}'
	//       the answer was never used: the server asked nothing during call_tool (line 3)
	// deploy: testdata/scripts/deploy.mcp:4: assert_elicited "version 2.4.1"
}

// The audit's rules as a test: the server keeps them; one whose state
// anyone can forge fails with the rule and the evidence.
func ExampleAudit() {
	run("TestAudit", func(t *T) {
		asktest.Audit(t, asktest.Server(newServer(broken{})), nil)
	}).print()
	ft := run("TestAudit", func(t *T) {
		asktest.Audit(t, asktest.Server(newServer(broken{plain: true})), nil)
	})
	fmt.Println(strings.Split(ft.Errors(), "\n")[0])
	// Output:
	// PASS
	// audit: tool "deploy" breaks rule 1 state-tamper: tampered requestState is refused
}

// A rule skipped by name, with the reason.
func ExampleAuditOptions_skip() {
	run("TestAudit", func(t *T) {
		asktest.Audit(t, asktest.Server(newServer(broken{plain: true})), &asktest.AuditOptions{Skip: map[string]string{
			"state-tamper":           "this test server keeps its state in the open",
			"state-bound-to-request": "the same",
		}})
	}).print()
	// Output:
	// PASS
}

// The rules an audit checks, by the names Skip takes.
func ExampleRules() {
	for _, r := range asktest.Rules()[:3] {
		fmt.Println(r)
	}
	// Output:
	// state-tamper: tampered requestState is refused
	// state-bound-to-request: requestState replayed on a request with other arguments is refused
	// state-bound-to-user: requestState issued to one user is refused for another
}

// A recording of a server serves a Go client; answering otherwise than
// recorded fails the test when it ends, and so does a recorded call the
// client never makes (the recording holds a second deploy, of web).
func ExampleNewStandIn() {
	run("TestClient", func(t *T) {
		st := asktest.NewStandIn(t, "testdata/deploy.jsonl", nil)
		got, err := deployClient(t.Context(), st.Transport(), "2025-11-25", "auth", "staging")
		fmt.Println(got, err)
	}).print()
	// Output:
	// Rolling out auth 2.4.1 to production. <nil>
	// FAIL
	// asktest: the client differs from the recording: testdata/deploy.jsonl:4: answer: tools/call deploy: the answer differs from the recorded one
	//   recorded: {"action":"accept","content":{"confirm":true,"environment":"production"}}
	//   got:      {"action":"accept","content":{"confirm":true,"environment":"staging"}}
	// asktest: the client differs from the recording: testdata/deploy.jsonl:8: missing: tools/call deploy: the client never made this call
}

var _ testing.TB = (*T)(nil)

// go test -update is the flag RunScripts reads; a package with golden
// files of its own reads it here.
func ExampleUpdating() {
	fmt.Println(asktest.Updating())
	// Output:
	// false
}
