// Command conformance is a server with the fixture tools, prompts and
// resources that the official MCP conformance suite's input-required-result-*
// and server-stateless scenarios call, built on the askback toolkit: every
// requestState it issues is sealed (AES-256-GCM), bound to the request and
// checked when it comes back.
//
// It serves Streamable HTTP at path /mcp, 2026-07-28 requests statelessly
// and 2025-11-25 clients in sessions of their own (endpoint.Handler):
//
//	conformance -http 127.0.0.1:8080
//
// With port 0 it picks a free port and logs the URL it serves; -addr-file
// FILE writes that URL to FILE too.
//
// The state key is random for each start, so states do not survive a
// restart; set ASKBACK_STATE_KEY (at least 32 bytes) to share one key
// between instances.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "serve Streamable HTTP at this address, path /mcp (2026-07-28 stateless, 2025-11-25 in sessions)")
	addrFile := flag.String("addr-file", "", "write the URL served to this file once listening")
	bounds := httpserve.RegisterFlags(flag.CommandLine)
	flag.Parse()
	if err := listen.CheckFlag("-http", *addr); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	if err := run(*addr, *addrFile, bounds); err != nil {
		log.Fatal(err)
	}
}

func run(addr, addrFile string, bounds *httpserve.Flags) error {
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if err := bounds.Apply(ho); err != nil {
		return err
	}
	codec, err := newCodec(os.Getenv("ASKBACK_STATE_KEY"))
	if err != nil {
		return err
	}
	server := newServer(codec)
	addTaskFixtures(server)

	srv := httpserve.Server(httpHandler(server), ho)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// scripts/conformance.sh reads this line to learn the port of "-http 127.0.0.1:0".
	url := fmt.Sprintf("http://%s/mcp", ln.Addr())
	log.Printf("conformance server at %s", url)
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(url+"\n"), 0o644); err != nil {
			return fmt.Errorf("-addr-file: %w", err)
		}
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newCodec returns the sealed codec of the fixtures, with the given secret or
// a random one, and a memory replay store for the single-use states.
func newCodec(secret string) (*reqstate.Codec, error) {
	key, err := keys.New("k1")
	if err != nil {
		return nil, err
	}
	if secret != "" {
		key.Secret = []byte(secret)
	}
	codec, err := reqstate.New(&reqstate.Options{
		Mode:   reqstate.Sealed,
		Keys:   []keys.Key{key},
		TTL:    5 * time.Minute,
		Replay: replay.NewMemory(nil),
	})
	if err != nil {
		return nil, fmt.Errorf("state key: %w (ASKBACK_STATE_KEY must be at least %d bytes)", err, keys.MinSecretLen)
	}
	return codec, nil
}

// maxRequestBody bounds the body of one HTTP request (413 beyond it).
const maxRequestBody = 1 << 20

// httpHandler serves server as Streamable HTTP at /mcp for both protocol
// eras (endpoint.Handler), with request bodies bounded.
func httpHandler(server *mcp.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", endpoint.New(func(*http.Request) *mcp.Server { return server }, nil))
	return httpserve.Bodies(mux, &httpserve.Options{MaxBody: maxRequestBody})
}
