package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodConns is how many connections the flood opens at once, each sending
// a body of maxRequestBody less one byte: what took the deployer to 1.7 GiB
// before its connections and bodies in flight were bounded.
const floodConns = 1500

// The flood: 1,500 connections from one address, each sending a 1 MiB body
// less one byte to the deployer's /mcp. The server's memory stays bounded
// while it lasts, a client at another address is served meanwhile, and the
// memory comes back to within 50 MiB of where it started once the flood has
// gone.
func TestFloodOfBodiesIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a flood of 1.5 GB")
	}
	dep := startDeployer(t)
	base := statsOf(t, dep)
	rss0 := rssOf(t, dep.PID())
	t.Logf("before: heap %.1f MiB, RSS %.1f MiB, %d goroutines", mib(int64(base.HeapInuse)), mib(rss0), base.Goroutines)

	// Sample the server's RSS while the flood lasts.
	var peak atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r, _ := tryRSS(dep.PID()); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	addr := dep.Addr
	body := []byte(strings.Repeat(" ", maxRequestBody-1))
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	var wg sync.WaitGroup
	var statuses sync.Map // status line -> count
	count := func(k string) {
		v, _ := statuses.LoadOrStore(k, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	start := make(chan struct{})
	for range floodConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, Timeout: 20 * time.Second}
			c, err := d.Dial("tcp", addr)
			if err != nil {
				count("dial error")
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(60 * time.Second))
			if _, err = c.Write([]byte(head)); err == nil {
				_, err = c.Write(body)
			}
			line, rerr := bufio.NewReader(c).ReadString('\n')
			switch {
			case rerr == nil:
				count(strings.TrimSpace(line))
			case err != nil:
				count("refused while sending")
			default:
				count("no answer")
			}
		}()
	}
	close(start)

	// A well-behaved client at another address is served during the flood.
	served := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // against a hang
		defer cancel()
		c := mcp.NewClient(&mcp.Implementation{Name: "well-behaved", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: from("127.0.0.2"), MaxRetries: -1}, nil)
		if err == nil {
			_, err = cs.ListTools(ctx, nil)
			cs.Close()
		}
		served <- err
	}()
	during := make(chan string, 1)
	go func() {
		time.Sleep(time.Second)
		s, err := tryStats(dep)
		if err != nil {
			during <- err.Error()
			return
		}
		during <- fmt.Sprintf("%.1f MiB", mib(int64(s.HeapInuse)))
	}()
	wg.Wait()
	close(stopSampling)
	<-sampled
	if err := <-served; err != nil {
		t.Errorf("a client at another address during the flood: %v", err)
	}
	heapDuring := <-during
	var summary []string
	statuses.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s: %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("during: heap %s (1 s in), RSS at most %.1f MiB; answers: %s", heapDuring, mib(peak.Load()), strings.Join(summary, ", "))
	if grown := peak.Load() - rss0; grown > 400<<20 {
		t.Errorf("the server's RSS grew by %.0f MiB during the flood", mib(grown))
	}

	// Memory comes back: heap and RSS within 50 MiB of where they started.
	deadline := time.Now().Add(2 * time.Minute) // against a hang
	for {
		s := statsOf(t, dep)
		rss := rssOf(t, dep.PID())
		heapOK, rssOK := int64(s.HeapInuse)-int64(base.HeapInuse) < 50<<20, rss-rss0 < 50<<20
		if heapOK && rssOK && s.Goroutines <= base.Goroutines+5 {
			t.Logf("after: heap %.1f MiB, RSS %.1f MiB, %d goroutines", mib(int64(s.HeapInuse)), mib(rss), s.Goroutines)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after the flood: heap %.1f MiB (from %.1f), RSS %.1f MiB (from %.1f), %d goroutines (from %d)",
				mib(int64(s.HeapInuse)), mib(int64(base.HeapInuse)), mib(rss), mib(rss0), s.Goroutines, base.Goroutines)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
