package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askback/askback/internal/server/debugstats"
	"github.com/askback/askback/internal/testsupport/scaleout"
)

// The attack on the sessions of 2025-11-25: a thousand anonymous sessions,
// from one address, each with a deploy call whose question is never
// answered. They took every place (MaxSessions) for as long as they were
// held, and left thousands of goroutines behind. Now a held session counts
// against its client's share, so another client still opens a session; each
// question waits at most -question-timeout; and once the clients have gone
// the server is back to its goroutines of before.
func TestUnansweredSessionsHoldNoPlace(t *testing.T) {
	// Connections are not what bounds the flood here: the sessions are.
	dep := startDeployer(t, "-question-timeout", "2s", "-session-timeout", "30s", "-max-conns", "5000", "-max-conns-per-client", "5000")
	base := statsOf(t, dep)
	// The flood's own HTTP client says so when a connection it opened is
	// refused before it wrote anything: not news here.
	log.SetOutput(io.Discard)
	defer log.SetOutput(os.Stderr)
	const n = 1000
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	var asked atomic.Int64
	flood := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(qctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			select { // never answered; the client leaves
			case <-qctx.Done():
			case <-ctx.Done():
			}
			return nil, context.Canceled
		},
	})
	hc := from("127.0.0.1")
	var opened, refused atomic.Int64
	var calls, opening sync.WaitGroup
	sem := make(chan struct{}, 64)
	start := time.Now()
	for range n {
		opening.Add(1)
		sem <- struct{}{}
		go func() {
			defer opening.Done()
			cs, err := flood.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			<-sem
			if err != nil {
				refused.Add(1)
				return
			}
			opened.Add(1)
			calls.Add(1)
			go func() {
				defer calls.Done()
				defer cs.Close()
				cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
			}()
		}()
	}
	opening.Wait()
	held := statsOf(t, dep)
	t.Logf("%d sessions tried in %v: %d opened, %d refused, %d questions asked; server: %d goroutines (from %d)",
		n, time.Since(start).Round(time.Millisecond), opened.Load(), refused.Load(), asked.Load(), held.Goroutines, base.Goroutines)

	// Another client opens a session, and is asked and answered.
	other := mcp.NewClient(&mcp.Implementation{Name: "other", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "confirm": true}}, nil
		},
	})
	octx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	otherHC := from("127.0.0.2")
	cs, err := other.Connect(octx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: otherHC, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("another client's initialize while the flood holds its sessions: %v", err)
	}
	res, err := cs.CallTool(octx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
	if err != nil || res.IsError || len(res.Content) == 0 || fmt.Sprint(res.Content[0].(*mcp.TextContent).Text) != "Rolling out api 2.4.1 to staging." {
		t.Fatalf("another client's deploy: %v, %v", res, err)
	}
	cs.Close()
	otherHC.CloseIdleConnections()

	// The flood's clients go; the server comes back to where it was.
	leave()
	calls.Wait()
	s := backToBase(t, dep, base.Goroutines, hc, otherHC)
	t.Logf("after the clients left: %d goroutines, heap %.1f MiB (from %.1f)", s.Goroutines, mib(int64(s.HeapInuse)), mib(int64(base.HeapInuse)))
}

// backToBase waits until the server dep runs at most want goroutines, and
// returns its stats then. What it waits for is the server's teardown, not
// the clients': a connection a client puts back in its pool after it was
// told to close its idle ones stays open (and its goroutine on the server
// with it) until the server's idle timeout, minutes later, and on a busy
// machine many come back late; so each look closes the clients' idle
// connections again. The bound is only against a hang: the server's
// goroutines, dumped, say what is left.
func backToBase(t *testing.T, dep *scaleout.Instance, want int, clients ...*http.Client) debugstats.Stats {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		for _, hc := range clients {
			hc.CloseIdleConnections()
		}
		s := statsOf(t, dep)
		if s.Goroutines <= want {
			return s
		}
		if time.Now().After(deadline) {
			dump := goroutinesOf(dep)
			t.Fatalf("2 minutes after the clients left: %d goroutines (want at most %d); the server's, by where they wait:\n%s\nin full:\n%s", s.Goroutines, want, waitingWhere(dump), dump)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitingWhere sums up a goroutine dump (a Go program's output on
// SIGQUIT): how many goroutines wait in which state at which function, the
// first frame of the project or the go-sdk naming the function (else the
// first frame outside the runtime); the runtime's own goroutines left out.
// A failure's first lines then say what was left, however its output is cut.
func waitingWhere(dump string) string {
	counts := map[string]int{}
	for _, g := range strings.Split(dump, "\ngoroutine ")[1:] {
		lines := strings.Split(g, "\n")
		state := ""
		if i, j := strings.Index(lines[0], "["), strings.LastIndex(lines[0], "]"); i >= 0 && j > i {
			state, _, _ = strings.Cut(lines[0][i+1:j], ",") // not how long
		}
		where := ""
		for _, l := range lines[1:] {
			if l == "" || l[0] == '\t' || strings.HasPrefix(l, "created by") {
				continue
			}
			fn := l[:max(strings.LastIndex(l, "("), 0)]
			if strings.Contains(fn, "askback") || strings.Contains(fn, "go-sdk") {
				where = fn
				break
			}
			if where == "" && !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/") {
				where = fn
			}
		}
		if where == "" {
			continue // the runtime's own
		}
		counts[fmt.Sprintf("[%s] %s", state, where)]++
	}
	var out []string
	for k, n := range counts {
		out = append(out, fmt.Sprintf("%4d %s", n, k))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// goroutinesOf makes the server dep print its goroutines as it exits
// (dumpGoroutines) and returns its output.
func goroutinesOf(dep *scaleout.Instance) string {
	dumpGoroutines(dep.PID())
	for end := time.Now().Add(30 * time.Second); !dep.Exited() && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	return dep.Output()
}

// The attack of the fourth review, against the binary, at a third of its
// size: clients at 20 loopback addresses open 16 sessions each (320, more
// than the 300 places), each with a deploy whose question is never
// answered and waits the default 10 minutes. Other clients, one address
// each, still open a session and deploy while every one of the flood's
// questions is still waiting (the newcomers take the places kept for them,
// then places the flood gives up, whose calls end; none waits for them).
// After the flood's clients leave, the server's goroutines come back to
// where they were and its heap to within 50 MiB of it.
func TestSessionsFromManyAddressesLockNobodyOut(t *testing.T) {
	dep := startDeployer(t, "-max-sessions", "300", "-session-timeout", "30s", "-max-conns", "5000", "-max-conns-per-client", "5000")
	base := statsOf(t, dep)
	log.SetOutput(io.Discard)
	defer log.SetOutput(os.Stderr)
	const addresses, perAddress = 20, 16
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	var asked, returned atomic.Int64
	flood := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(qctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			select { // never answered; the client leaves
			case <-qctx.Done():
			case <-ctx.Done():
			}
			return nil, context.Canceled
		},
	})
	var calls, opening sync.WaitGroup
	var clients []*http.Client
	for a := range addresses {
		hc := from(fmt.Sprintf("127.0.0.%d", a+2))
		clients = append(clients, hc)
		for range perAddress {
			opening.Add(1)
			go func() {
				defer opening.Done()
				cs, err := flood.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					return
				}
				calls.Add(1)
				go func() {
					defer calls.Done()
					defer cs.Close()
					cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
					returned.Add(1)
				}()
			}()
		}
	}
	opening.Wait()
	for deadline := time.Now().Add(60 * time.Second); asked.Load()-returned.Load() < 250; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the flood's questions did not arrive: %d asked, %d calls returned", asked.Load(), returned.Load())
		}
	}
	held := statsOf(t, dep)
	t.Logf("flood: %d questions waiting; server: %d goroutines (from %d), heap %.1f MiB (from %.1f)",
		asked.Load()-returned.Load(), held.Goroutines, base.Goroutines, mib(int64(held.HeapInuse)), mib(int64(base.HeapInuse)))

	other := mcp.NewClient(&mcp.Implementation{Name: "other", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "confirm": true}}, nil
		},
	})
	var newcomers []*mcp.ClientSession
	for i := range 40 {
		octx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // against a hang, not a measure
		hc := from(fmt.Sprintf("127.0.1.%d", i+1))
		cs, err := other.Connect(octx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			cancel()
			t.Fatalf("newcomer %d's initialize while the flood holds every place: %v", i, err)
		}
		res, err := cs.CallTool(octx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
		cancel()
		if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "Rolling out api 2.4.1 to staging." {
			t.Fatalf("newcomer %d's deploy: %v, %v", i, res, err)
		}
		newcomers = append(newcomers, cs)
		clients = append(clients, hc)
	}
	// The newcomers were served while the flood's questions still waited:
	// only the places given up ended their calls.
	if waiting := asked.Load() - returned.Load(); waiting < 250-40 {
		t.Fatalf("only %d of the flood's questions still wait after the newcomers", waiting)
	}

	// The newcomers close their sessions and the flood's clients go.
	for _, cs := range newcomers {
		cs.Close()
	}
	leave()
	calls.Wait()
	s := backToBase(t, dep, base.Goroutines, clients...)
	t.Logf("after the flood left: %d goroutines, heap %.1f MiB (from %.1f)", s.Goroutines, mib(int64(s.HeapInuse)), mib(int64(base.HeapInuse)))
	if grown := int64(s.HeapInuse) - int64(base.HeapInuse); grown > 50<<20 {
		t.Fatalf("the heap is %.1f MiB above where it started", mib(grown))
	}
}
