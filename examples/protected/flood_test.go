package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// from is an HTTP client whose connections come from the loopback address
// ip: another client, as the server sees it.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// startProtected runs the example and returns its base URL.
func startProtected(t *testing.T) string {
	t.Helper()
	bin := testbin.Path(t, "./examples/protected")
	urlFile := filepath.Join(t.TempDir(), "url")
	cmd := exec.Command(bin, "-url-file", urlFile)
	cmd.Env = append(os.Environ(), "PROTECTED_PASSWORD=letmein")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(urlFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSuffix(strings.TrimSpace(string(b)), "/mcp")
		}
	}
	t.Fatal("protected did not write its URL")
	return ""
}

// register registers a client with hc and returns the status.
func register(t *testing.T, hc *http.Client, base string) int {
	resp, err := hc.Post(base+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1:9/cb"]}`))
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The registration flood of the fourth review against the example's
// binary: 60 loopback addresses register as many clients as they can, at
// once, filling the 1,000 places of clients nobody signed in with. Clients
// at other addresses still register while the flood holds them, and the
// flood itself gets no more than its share. Before, everyone else got 429
// for the 10 minutes a registration waits for a sign-in.
func TestRegistrationFloodFromManyAddresses(t *testing.T) {
	base := startProtected(t)
	var created atomic.Int64
	var wg sync.WaitGroup
	for a := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := from(fmt.Sprintf("127.0.0.%d", a+2))
			defer hc.CloseIdleConnections()
			for range 25 {
				if register(t, hc, base) == http.StatusCreated {
					created.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := created.Load(); n < 900 {
		t.Fatalf("the flood registered %d clients, want every place it may take (900 of the 1,000)", n)
	}
	for i := range 50 {
		hc := from(fmt.Sprintf("127.0.1.%d", i+1))
		if code := register(t, hc, base); code != http.StatusCreated {
			t.Fatalf("newcomer %d while the flood holds every place: %d, want 201", i, code)
		}
		hc.CloseIdleConnections()
	}
}
