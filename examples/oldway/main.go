// Command oldway is the baseline of the scale-out benchmarks: the
// deployer's deploy tool written the way protocol 2025-11-25 asked questions. The
// handler holds the tools/call open, sends elicitation/create to the client
// over the call's stream and waits for the answer, so every pending
// question keeps a session, a goroutine and a connection alive on the
// server, and the answer must come back to the very instance that waits.
//
// It serves stateful Streamable HTTP at /mcp on -http ADDR; clients must
// speak 2025-11-25. Compare it with examples/deployer, which asks with
// multi round-trip requests and holds nothing between rounds.
//
// Sessions are bounded (-max-sessions, default 1000; 503 beyond) and closed
// after 10 idle minutes; a request without a session opens none.
//
//	oldway -http 127.0.0.1:8081 [-addr-file FILE] [-debug-stats] [-max-sessions N]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/server/debugstats"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve stateful Streamable HTTP at /mcp on this address (required)")
	addrFile := flag.String("addr-file", "", "write the address listened on to this file")
	stats := flag.Bool("debug-stats", false, "serve heap and goroutine counts at /debug/stats (for benchmarks)")
	var eo endpoint.Options
	flag.IntVar(&eo.MaxSessions, "max-sessions", endpoint.DefaultMaxSessions, "open sessions at most; another initialize gets 503")
	flag.IntVar(&eo.MaxSessionsPerUser, "max-sessions-per-caller", endpoint.DefaultMaxSessionsPerUser, "open sessions of one caller (a client address) at most")
	bounds := httpserve.RegisterFlags(flag.CommandLine)
	flag.Parse()
	if *addr != "" {
		if err := listen.CheckFlag("-http", *addr); err != nil {
			fmt.Fprintln(os.Stderr, "oldway:", err)
			os.Exit(2)
		}
	}
	if err := run(*addr, *addrFile, *stats, &eo, bounds); err != nil {
		fmt.Fprintln(os.Stderr, "oldway:", err)
		os.Exit(1)
	}
}

func run(addr, addrFile string, stats bool, sessions *endpoint.Options, bounds *httpserve.Flags) error {
	if addr == "" {
		return errors.New("-http ADDR is required, e.g. -http 127.0.0.1:8081")
	}
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if err := bounds.Apply(ho); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(ln.Addr().String()+"\n"), 0o600); err != nil {
			return fmt.Errorf("-addr-file: %w", err)
		}
	}
	hs := httpserve.Server(httpHandler(newServer(), stats, sessions), ho)
	return hs.Serve(ln)
}

// maxRequestBody bounds the body of one HTTP request (413 beyond it).
const maxRequestBody = 1 << 20

// httpHandler serves srv as stateful Streamable HTTP at /mcp, and
// /debug/stats when stats is set, with request bodies bounded and sessions
// bounded as sessions says (503 beyond; closed after 10 idle minutes).
func httpHandler(srv *mcp.Server, stats bool, sessions *endpoint.Options) http.Handler {
	o := endpoint.Options{SessionTimeout: 10 * time.Minute}
	if sessions != nil {
		o = *sessions
		o.SessionTimeout = 10 * time.Minute
	}
	o.SessionsOnly = true
	mux := http.NewServeMux()
	mux.Handle("/mcp", endpoint.New(func(*http.Request) *mcp.Server { return srv }, &o))
	if stats {
		mux.Handle("/debug/stats", debugstats.Handler())
	}
	return httpserve.Bodies(mux, &httpserve.Options{MaxBody: maxRequestBody})
}

// DeployIn is the deploy tool's input.
type DeployIn struct {
	Service string `json:"service" jsonschema:"Name of the service"`
}

var targetSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"environment": map[string]any{
			"type": "string", "title": "Target environment",
			"oneOf": []map[string]any{
				{"const": "staging", "title": "Staging"},
				{"const": "production", "title": "Production"},
			},
			"default": "staging",
		},
		"confirm": map[string]any{"type": "boolean", "title": "I have reviewed the changes"},
	},
	"required": []string{"environment", "confirm"},
}

// newServer returns the server. The version the user confirms stays in the
// handler's variables while it waits: nothing travels through the client.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "oldway", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "deploy",
		Description: "Rolls out a service. Holds the call open and asks the user (elicitation/create) for the target environment and confirmation.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in DeployIn) (*mcp.CallToolResult, any, error) {
		version := "2.4.1"
		ectx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		answer, err := req.Session.Elicit(ectx, &mcp.ElicitParams{
			Mode:            "form",
			Message:         fmt.Sprintf("Roll out %s version %s – where to?", in.Service, version),
			RequestedSchema: targetSchema,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("ask the user: %w", err)
		}
		if answer.Action != "accept" {
			return text("Deployment not started (" + answer.Action + ")."), nil, nil
		}
		if confirm, _ := answer.Content["confirm"].(bool); !confirm {
			return text("No deployment without confirmation."), nil, nil
		}
		env, _ := answer.Content["environment"].(string)
		return text(fmt.Sprintf("Rolling out %s %s to %s.", in.Service, version, env)), nil, nil
	})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
