// Command deployer is the project's example of a server that asks by
// elicitation: a `deploy` tool that asks the user where to roll a service
// out and for confirmation, carrying the confirmed version from round 1 to
// round 2 in a sealed requestState that is bound to the request and the
// user, expires, and can be used once.
//
// It also has a long-running `rollout` tool that runs as a task (the
// io.modelcontextprotocol/tasks extension) and asks half-way whether to go
// on.
//
// It speaks MCP over stdio, or Streamable HTTP at /mcp with -http ADDR:
// 2026-07-28 requests stateless, 2025-11-25 clients in sessions.
// DEPLOY_STATE_KEY holds the secret (at least 32 characters) that seals
// the states; when it is not set, a single instance seals them with a
// random key of its own, which a restart forgets (it says so on stderr).
// With -redis URL (or DEPLOY_REDIS_URL) single-use states and task records
// live in Redis, so that several instances behind a proxy serve one
// conversation (see docs/scale-out.md); they must then share the key, and
// DEPLOY_STATE_KEY is required.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/askback/askback/keys"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/form"
	"github.com/askback/askback/internal/server/debugstats"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/reqstate"
	"github.com/askback/askback/tasks"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp on this address instead of stdio (2026-07-28 stateless, 2025-11-25 in sessions)")
	taskDB := flag.String("task-db", "", "keep the rollout's task records in this bbolt file, so that they survive a restart (default: memory)")
	step := flag.Duration("rollout-step", 300*time.Millisecond, "how long the rollout takes per instance")
	df := registerDeployFlags(flag.CommandLine)
	flag.Parse()
	if *addr != "" {
		if err := listen.CheckFlag("-http", *addr); err != nil {
			fmt.Fprintln(os.Stderr, "deployer:", err)
			os.Exit(2)
		}
	}
	ro := &rolloutOptions{Step: *step}
	if err := run(context.Background(), os.Stderr, os.Getenv("DEPLOY_STATE_KEY"), *addr, *taskDB, ro, df); err != nil {
		fmt.Fprintln(os.Stderr, "deployer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stderr io.Writer, key, addr, taskDB string, ro *rolloutOptions, df *deployFlags) error {
	if key == "" {
		if df.redis() != "" {
			return errors.New("DEPLOY_STATE_KEY is not set: instances that share Redis must share the key that seals the states too; set the same secret of at least 32 characters in each, e.g. DEPLOY_STATE_KEY=$(head -c 32 /dev/urandom | base64)")
		}
		var err error
		if key, err = randomKey(); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "deployer: DEPLOY_STATE_KEY is not set: states are sealed with a random key of this process; a restart forgets it and refuses the states sealed before (set DEPLOY_STATE_KEY to keep them)")
	}
	st, err := openStores(ctx, df)
	if err != nil {
		return err
	}
	defer st.close()
	if taskDB != "" {
		db, err := tasks.OpenBoltStore(taskDB, nil)
		if err != nil {
			return fmt.Errorf("-task-db: %w", err)
		}
		defer db.Close()
		st.tasks.Store = db
	}
	srv, err := newServer(key, st, ro)
	if err != nil {
		return err
	}
	if addr == "" {
		// Every message checked before the go-sdk reads it: ambiguous
		// answers are refused (ask.CheckMessage).
		return srv.Run(ctx, ask.StrictStdio())
	}
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if df != nil && df.http != nil {
		if err := df.http.Apply(ho); err != nil {
			return err
		}
	}
	hs := httpserve.Server(httpHandler(srv, df), ho)
	hs.Addr = addr
	return listenAndServe(hs, df)
}

// randomKey returns a secret for one process: 32 bytes from crypto/rand,
// in base64.
func randomKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("a random DEPLOY_STATE_KEY: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// maxRequestBody bounds the body of one HTTP request: a deploy or rollout
// call is a few hundred bytes, so 1 MiB leaves room and refuses floods.
const maxRequestBody = 1 << 20

// httpHandler serves srv as Streamable HTTP at /mcp (and /debug/stats with
// -debug-stats): 2026-07-28 requests statelessly, 2025-11-25 clients in
// sessions of their own, so that they are asked with elicitation/create
// (endpoint.Handler). Bodies longer than maxRequestBody get 413 and bodies
// slower than httpserve.DefaultBodyTimeout 408: the go-sdk's handler reads
// whatever it is sent, as slowly as it comes.
func httpHandler(srv *mcp.Server, df *deployFlags) http.Handler {
	mux := http.NewServeMux()
	var eo *endpoint.Options
	if df != nil {
		eo = &df.sessions
	}
	mux.Handle("/mcp", endpoint.New(func(*http.Request) *mcp.Server { return srv }, eo))
	if df != nil && df.debugStats {
		mux.Handle("/debug/stats", debugstats.Handler())
	}
	return httpserve.Bodies(mux, &httpserve.Options{MaxBody: maxRequestBody})
}

// newServer builds the deployer's MCP server.
func newServer(key string, st *stores, ro *rolloutOptions) (*mcp.Server, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("DEPLOY_STATE_KEY must be at least 32 characters long (it has %d); set it to a random secret, e.g. DEPLOY_STATE_KEY=$(head -c 32 /dev/urandom | base64)", len(key))
	}
	states, err := reqstate.New(&reqstate.Options{
		Keys:   []keys.Key{{ID: "deploy", Secret: []byte(key)}},
		Replay: st.replay,
	})
	if err != nil {
		return nil, err
	}
	d := &deployer{states: states, target: form.Must[Target](nil), latest: func(string) string { return "2.4.1" }}
	s := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1.0.0"}, nil)
	ask.EveryRound(s) // older clients are asked every round too
	in, err := inputSchema[DeployIn]()
	if err != nil {
		return nil, err
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "deploy",
		Description: "Rolls out a service. Asks the user for the target environment and confirmation.",
		InputSchema: in,
	}, d.deploy)
	if ro == nil {
		ro = &rolloutOptions{}
	}
	ro.Tasks = st.tasks
	if _, err := registerRollout(s, ro); err != nil {
		return nil, err
	}
	return s, nil
}

// inputSchema is the input schema the go-sdk infers for T, as JSON. Given
// so to mcp.AddTool, it is resolved (and every call's arguments validated
// against it) as the inferred one is; but the go-sdk, which reads each
// tool's input schema again on every call to find the arguments bound to
// headers, then reads these bytes rather than marshalling a
// *jsonschema.Schema anew each time.
func inputSchema[T any]() (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("the input schema of %T: %w", *new(T), err)
	}
	return json.Marshal(s)
}
