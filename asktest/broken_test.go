package asktest_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/askback/askback/asktest"
)

// failing runs f as a test, which must fail saying each of want.
func failing(t *testing.T, name string, f func(t *T), want ...string) *T {
	t.Helper()
	ft := run(name, f)
	if !ft.Failed() {
		t.Fatalf("%s: the test passed; want it to fail", name)
	}
	t.Logf("%s fails:\n%s", name, ft.Errors())
	for _, w := range want {
		if !strings.Contains(ft.Errors(), w) {
			t.Errorf("%s: the failure does not say %q:\n%s", name, w, ft.Errors())
		}
	}
	return ft
}

// Each assertion of a call fails the test when the server misbehaves (or
// the test's answers do not fit), saying what went wrong.
func TestCallFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    broken
		opts *asktest.Options
		call func(c *asktest.Client)
		want []string
	}{{
		name: "a question nobody answers",
		call: func(c *asktest.Client) { c.CallTool("deploy", web) },
		want: []string{`CallTool("deploy")`, `no answer was given for question "target"`,
			`the question: "target" (round 1, form environment, confirm): "Roll out web version 2.4.1 – where to?" → no answer`},
	}, {
		name: "a server that stopped asking",
		b:    broken{noAsk: true},
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Accept(production)) },
		want: []string{`the answer accept {"confirm":true,"environment":"production"} was not used: no question it fits was asked`, "the server asked no question"},
	}, {
		name: "a keyed answer to a question of 2025-11-25",
		opts: &asktest.Options{Era: asktest.Legacy},
		call: func(c *asktest.Client) {
			c.CallTool("deploy", web, asktest.Accept(production).For("target"), asktest.Decline())
		},
		want: []string{`leave out .For("target")`},
	}, {
		name: "an answer with a field the form does not ask",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Accept(map[string]any{"colour": "blue"})) },
		want: []string{"colour"},
	}, {
		name: "a server that asks for ever",
		b:    broken{reAsk: true},
		opts: &asktest.Options{MaxRounds: 3},
		call: func(c *asktest.Client) {
			c.CallTool("deploy", web, asktest.AnswerFunc(func(asktest.Question) asktest.Answer { return asktest.Accept(production) }))
		},
		want: []string{"still asks after 3 rounds; stopped; raise Options.MaxRounds if this is intended"},
	}, {
		name: "a message that changed",
		b:    broken{wrongMsg: true},
		call: func(c *asktest.Client) {
			c.CallTool("deploy", web, asktest.AnswerFunc(func(q asktest.Question) asktest.Answer {
				if strings.Contains(q.Message, "2.4.1") {
					return asktest.Accept(production)
				}
				return asktest.Answer{}
			}))
		},
		want: []string{`"Roll out web version 2.4.0 – where to?" → no answer`},
	}, {
		name: "a form where a link was expected",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.OpenURL()) },
		want: []string{`no answer was given for question "target"`},
	}, {
		name: "a link where a form was expected",
		b:    broken{askURL: true},
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Accept(production)) },
		want: []string{`question "open": a URL question takes no content`, "(round 1, url): \"Sign in to deploy\" https://example.test/sign-in"},
	}, {
		name: "a request for a model reply nobody gives",
		opts: &asktest.Options{Sampling: true},
		call: func(c *asktest.Client) { c.CallTool("summarize", map[string]any{"text": "x"}) },
		want: []string{`question "summary": no model reply is left to answer it; give the call one more asktest.Reply`},
	}, {
		name: "a reply nobody asked for",
		opts: &asktest.Options{Sampling: true},
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Decline(), asktest.Reply("spare")) },
		want: []string{`the reply "spare" was not used`},
	}, {
		name: "an error wanted of a call that succeeds",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Decline(), asktest.WantError()) },
		want: []string{"no error, want one (WantError)", "Deployment not started (decline)."},
	}, {
		name: "an error not wanted",
		call: func(c *asktest.Client) { c.CallTool("nosuchtool", nil) },
		want: []string{`CallTool("nosuchtool")`},
	}, {
		name: "a tool that reports its failure (isError), not wanted",
		b:    broken{fails: "Rollback failed: \x1b]0;PWNED\x07web has \u202eone\u200b release."},
		call: func(c *asktest.Client) { c.CallTool("rollback", web, asktest.Accept(map[string]any{"sure": true})) },
		want: []string{`CallTool("rollback"): tools/call "rollback": the tool reported an error (isError): Rollback failed: \x1b]0;PWNED\x07web has \u202eone\u200b release.`},
	}, {
		name: "a key given to a reply",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Reply("x").For("target")) },
		want: []string{`reply "x".For("target"): only an answer to a question is kept for a key`},
	}, {
		name: "a round before the first",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Accept(production).InRound(0)) },
		want: []string{`.InRound(0): only an answer to a question is kept for a round, from 1`},
	}, {
		name: "a zero answer",
		call: func(c *asktest.Client) { c.CallTool("deploy", web, asktest.Answer{}) },
		want: []string{"a zero Answer"},
	}} {
		failing(t, tc.name, func(ft *T) {
			c := asktest.NewClient(ft, asktest.Server(newServer(tc.b)), tc.opts)
			tc.call(c)
		}, tc.want...)
	}
}

// A wanted error comes back in the Result, and the test goes on.
func TestWantError(t *testing.T) {
	c := asktest.NewClient(t, asktest.Server(newServer(broken{})), nil)
	r := c.CallTool("nosuchtool", nil, asktest.WantError())
	if r.Err == nil || !strings.Contains(r.Err.Error(), "nosuchtool") {
		t.Errorf("Err = %v", r.Err)
	}
}

// WantError expects an error of the server's: the test's own mistakes (a
// question nobody answered, an answer that does not fit its form, an
// answer no question took) fail the test all the same, in every entry
// point and both eras, while the server's errors still pass.
func TestWantErrorIsNoCoverForTheTestsMistakes(t *testing.T) {
	moon := asktest.Accept(map[string]any{"environment": "moon", "confirm": true})
	number := asktest.Accept(map[string]any{"name": 42})
	const ownMistake = "(WantError expects an error of the server's; this one is the test's own)"
	for _, tc := range []struct {
		name string
		call func(c *asktest.Client)
		want []string
	}{
		{"CallTool: a question nobody answered", func(c *asktest.Client) { c.CallTool("deploy", web, asktest.WantError()) },
			[]string{`CallTool("deploy"): tools/call "deploy": no answer was given for question`, ownMistake}},
		{"GetPrompt: a question nobody answered", func(c *asktest.Client) { c.GetPrompt("greet", nil, asktest.WantError()) },
			[]string{`GetPrompt("greet"): prompts/get "greet": no answer was given for question`, ownMistake}},
		{"ReadResource: a question nobody answered", func(c *asktest.Client) { c.ReadResource("note://today", asktest.WantError()) },
			[]string{`ReadResource("note://today"): resources/read "note://today": no answer was given for question`, ownMistake}},
		{"CallTool: an answer that does not fit", func(c *asktest.Client) { c.CallTool("deploy", web, moon, asktest.WantError()) },
			[]string{`field "environment": must be one of "staging", "production", got the string "moon"`, ownMistake}},
		{"GetPrompt: an answer that does not fit", func(c *asktest.Client) { c.GetPrompt("greet", nil, number, asktest.WantError()) },
			[]string{`GetPrompt("greet")`, `field "name"`, ownMistake}},
		{"ReadResource: an answer that does not fit", func(c *asktest.Client) { c.ReadResource("note://today", number, asktest.WantError()) },
			[]string{`ReadResource("note://today")`, `field "name"`, ownMistake}},
		{"CallTool: an answer no question took", func(c *asktest.Client) { c.CallTool("nosuchtool", nil, asktest.Decline(), asktest.WantError()) },
			[]string{`CallTool("nosuchtool"): the answer decline was not used`, "the server asked no question", `the call ended with the error wanted: tools/call "nosuchtool"`}},
		{"GetPrompt: an answer no question took", func(c *asktest.Client) { c.GetPrompt("nosuchprompt", nil, asktest.Decline(), asktest.WantError()) },
			[]string{`GetPrompt("nosuchprompt"): the answer decline was not used`, `the call ended with the error wanted: prompts/get "nosuchprompt"`}},
		{"ReadResource: an answer no question took", func(c *asktest.Client) { c.ReadResource("note://nosuch", asktest.Decline(), asktest.WantError()) },
			[]string{`ReadResource("note://nosuch"): the answer decline was not used`, `the call ended with the error wanted: resources/read "note://nosuch"`}},
		{"an isError result and an answer no question took", func(c *asktest.Client) {
			c.CallTool("rollback", web, asktest.Accept(map[string]any{"sure": true}), asktest.Decline(), asktest.WantError())
		}, []string{`CallTool("rollback"): the answer decline was not used`, "(isError): Nothing to roll back."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
				failing(t, tc.name, func(ft *T) {
					c := asktest.NewClient(ft, asktest.Server(newServer(broken{fails: "Nothing to roll back."})), &asktest.Options{Era: era})
					tc.call(c)
				}, tc.want...)
			})
		})
	}
	// The server's errors, each entry point's, still pass.
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{})), &asktest.Options{Era: era})
		for _, r := range []*asktest.Result{
			c.CallTool("nosuchtool", nil, asktest.WantError()),
			c.GetPrompt("nosuchprompt", nil, asktest.WantError()),
			c.ReadResource("note://nosuch", asktest.WantError()),
		} {
			if r.Err == nil || !strings.Contains(r.Err.Error(), "nosuch") {
				t.Errorf("Err = %v", r.Err)
			}
		}
		if got := c.ReadResource("note://today", asktest.Accept(map[string]any{"name": "Ada"})).Text(); got != "Today, for Ada." {
			t.Errorf("note: %q", got)
		}
	})
}

// A tool that reports its failure with an isError result ends the call
// with an error, as mcp-tester call (exit 1) and a script's expect_error
// take it: WantError passes on it, in both eras, and Result.Err names the
// tool and its text while Tool holds the result.
func TestWantErrorOfIsError(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		c := asktest.NewClient(t, asktest.Server(newServer(broken{fails: "Nothing to roll back."})), &asktest.Options{Era: era})
		r := c.CallTool("rollback", web, asktest.Accept(map[string]any{"sure": true}), asktest.WantError())
		if want := `tools/call "rollback": the tool reported an error (isError): Nothing to roll back.`; r.Err == nil || r.Err.Error() != want {
			t.Errorf("Err = %v, want %s", r.Err, want)
		}
		if r.Tool == nil || !r.Tool.IsError || r.Text() != "Nothing to roll back." || len(r.Questions) != 1 {
			t.Errorf("result %+v, text %q, questions %v", r.Tool, r.Text(), r.Questions)
		}
	})
}

// A server that cannot be reached, or that does not speak the era asked
// for, fails the test where the client is made.
func TestConnectFailures(t *testing.T) {
	failing(t, "no such command", func(ft *T) {
		asktest.NewClient(ft, asktest.Command("/nonexistent/server"), nil)
	}, `asktest: connect to command "/nonexistent/server"`)
	failing(t, "an era nobody speaks", func(ft *T) {
		asktest.NewClient(ft, asktest.Server(newServer(broken{})), &asktest.Options{Era: "1999-01-01"})
	}, `asktest: Options.Era "1999-01-01": this tester speaks [2026-07-28 2025-11-25`)
	failing(t, "the zero Target", func(ft *T) {
		asktest.NewClient(ft, asktest.Target{}, nil)
	}, "make the Target with asktest.Server, Command or URL")
}

// A handler that does not return when its call ends (it ignores its
// context) is still running when the test closes the session: the test
// fails for it. The test runs in a bubble, whose clock waits for nothing.
func TestLeftRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		ft := failing(t, "a handler that does not return", func(ft *T) {
			c := asktest.NewClient(ft, asktest.Server(newServer(broken{stuck: stuck})), nil)
			go c.CallTool("slow", nil, asktest.WantError())
			synctest.Wait() // the call is in the handler
		}, "1 session(s) of the in-memory server still running")
		close(stuck)
		synctest.Wait()
		t.Log(ft.Errors())
	})
}

// A call made from a goroutine that is still running when the test ends
// (here: its AnswerFunc waits for ever) fails the test.
func TestCallLeftRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		failing(t, "a call nobody waited for", func(ft *T) {
			c := asktest.NewClient(ft, asktest.Server(newServer(broken{})), nil)
			go c.CallTool("deploy", web, asktest.AnswerFunc(func(asktest.Question) asktest.Answer {
				<-hold
				return asktest.Decline()
			}), asktest.WantError())
			synctest.Wait()
		}, `CallTool("deploy") still running`)
		close(hold)
		synctest.Wait()
	})
}

// A handler that returns when its call ends leaves nothing running.
func TestNothingLeftRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ft := run("a handler that returns", func(ft *T) {
			c := asktest.NewClient(ft, asktest.Server(newServer(broken{slow: true})), nil)
			go c.CallTool("slow", nil, asktest.WantError())
			synctest.Wait()
		})
		if ft.Failed() {
			t.Errorf("the test failed:\n%s", ft.Errors())
		}
	})
}
