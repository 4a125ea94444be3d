package asktest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deployClient is a Go client under test: it deploys a service, answering
// the question with environment, as a program built on the go-sdk would.
func deployClient(ctx context.Context, tr mcp.Transport, version, service, environment string) (string, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "deploy-client", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if environment == "" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": environment, "confirm": true}}, nil
		},
	})
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": service}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// The recording of a deployer serves the client in either era, in memory
// or over HTTP; the client that answers as recorded passes.
func TestStandIn(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		st := asktest.NewStandIn(t, "testdata/deploy.jsonl", nil)
		got, err := deployClient(t.Context(), st.Transport(), string(era), "auth", "production")
		if err != nil || got != "Rolling out auth 2.4.1 to production." {
			t.Errorf("in memory: %q, %v", got, err)
		}
		got, err = deployClient(t.Context(), &mcp.StreamableClientTransport{Endpoint: st.URL()}, string(era), "web", "")
		if err != nil || got != "Deployment not started (decline)." {
			t.Errorf("over HTTP: %q, %v", got, err)
		}
	})
}

// A client that answers otherwise than recorded, or sends what the
// recording does not hold, fails the test when it ends.
func TestStandInFails(t *testing.T) {
	failing(t, "another answer", func(ft *T) {
		st := asktest.NewStandIn(ft, "testdata/deploy.jsonl", nil)
		deployClient(ft.Context(), st.Transport(), "2026-07-28", "auth", "staging")
	}, "the client differs from the recording: testdata/deploy.jsonl:4: answer: tools/call deploy",
		`"environment":"production"`, `"environment":"staging"`)
	failing(t, "an unrecorded call", func(ft *T) {
		st := asktest.NewStandIn(ft, "testdata/deploy.jsonl", nil)
		deployClient(ft.Context(), st.Transport(), "2026-07-28", "billing", "production")
	}, "unrecorded: tools/call deploy", `the nearest recorded is tools/call {"arguments":{"service":"auth"},"name":"deploy"} (line 4)`)
	failing(t, "no recording", func(ft *T) {
		asktest.NewStandIn(ft, "testdata/nothing.jsonl", nil)
	}, "no such file")
}

// A fault injected into the recorded call reaches the client as the
// error it names; a spec the stand-in cannot read fails the test.
func TestStandInFaults(t *testing.T) {
	st := asktest.NewStandIn(t, "testdata/deploy.jsonl", &asktest.StandInOptions{Faults: []string{"tools/call deploy:error=-32603:boom"}})
	for _, service := range []string{"auth", "web"} { // each recorded call is to be made
		if _, err := deployClient(t.Context(), st.Transport(), "2026-07-28", service, "production"); err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("the call of %s with a fault: %v, want the error boom", service, err)
		}
	}
	failing(t, "a fault it cannot read", func(ft *T) {
		asktest.NewStandIn(ft, "testdata/deploy.jsonl", &asktest.StandInOptions{Faults: []string{"tools/call:explode"}})
	}, "asktest: StandInOptions.Faults:")
}

// A client that never makes a recorded call, or makes fewer than were
// recorded, fails the test when it ends, as mcp-tester serve reports it
// (missing): in both eras, for a recording of the deployer and one of the
// TypeScript reference server (2025-11-25, its question asked with
// elicitation/create).
func TestStandInMissingCall(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		failing(t, "no call", func(ft *T) {
			st := asktest.NewStandIn(ft, "testdata/deploy.jsonl", nil)
			c := mcp.NewClient(&mcp.Implementation{Name: "idle-client", Version: "1"}, nil)
			cs, err := c.Connect(ft.Context(), st.Transport(), &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
			if err != nil {
				ft.Fatal(err)
			}
			cs.Close()
		}, "the client differs from the recording: testdata/deploy.jsonl:4: missing: tools/call deploy: the client never made this call",
			"testdata/deploy.jsonl:8: missing: tools/call deploy")
		failing(t, "one call of two", func(ft *T) {
			st := asktest.NewStandIn(ft, "testdata/deploy.jsonl", nil)
			if got, err := deployClient(ft.Context(), st.Transport(), string(era), "auth", "production"); err != nil || got != "Rolling out auth 2.4.1 to production." {
				ft.Errorf("%q, %v", got, err)
			}
		}, "testdata/deploy.jsonl:8: missing: tools/call deploy")
		ft := failing(t, "the reference server's call never made", func(ft *T) {
			st := asktest.NewStandIn(ft, "testdata/everything.jsonl", nil)
			c := mcp.NewClient(&mcp.Implementation{Name: "idle-client", Version: "1"}, nil)
			cs, err := c.Connect(ft.Context(), st.Transport(), &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
			if err != nil {
				ft.Fatal(err)
			}
			cs.Close()
		}, "missing: tools/call trigger-elicitation-request: the client never made this call")
		if strings.Contains(ft.Errors(), "testdata/deploy.jsonl:4") {
			t.Errorf("the wrong recording:\n%s", ft.Errors())
		}
	})
}
