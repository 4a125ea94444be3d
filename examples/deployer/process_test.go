package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/debugstats"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// testStateKey seals the states of the deployer processes the tests start.
const testStateKey = "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef"

// startDeployer runs the deployer binary over HTTP on a loopback port with
// /debug/stats and args, until the test ends.
func startDeployer(t *testing.T, args ...string) *scaleout.Instance {
	t.Helper()
	bin := filepath.Join(testbin.Need(t, "./examples/deployer"), "deployer")
	return scaleout.StartInstance(t, "deployer", bin, []string{testStateKey}, append([]string{"-debug-stats"}, args...)...)
}

// from is an HTTP client whose connections come from the loopback address
// ip (127.0.0.1, 127.0.0.2, ...): one machine, several clients.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

// statsClient reads /debug/stats from an address of its own, on one kept
// connection.
var statsClient = from("127.0.0.250")

// statsOf reads the instance's /debug/stats (after a garbage collection) as
// a client at 127.0.0.250.
func statsOf(t *testing.T, in *scaleout.Instance) debugstats.Stats {
	t.Helper()
	s, err := tryStats(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tryStats is statsOf for another goroutine than the test's.
func tryStats(in *scaleout.Instance) (debugstats.Stats, error) {
	var s debugstats.Stats
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, in.Base()+"/debug/stats", nil)
	resp, err := statsClient.Do(req)
	if err != nil {
		return s, fmt.Errorf("debug stats: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return s, fmt.Errorf("debug stats: %w", err)
	}
	return s, nil
}

// rssOf returns the resident memory of process pid, from /proc.
func rssOf(t *testing.T, pid int) int64 {
	t.Helper()
	n, err := tryRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tryRSS is rssOf for another goroutine than the test's.
func tryRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read the server's memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
