package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The cost of the proxy, as BENCHMARKS.md reports it.
//
// BenchmarkAddedLatency: a go-sdk server over Streamable HTTP (stateless,
// answers as event streams) and a client sending tools/call requests, in
// this process; mcp-tester proxy (the built binary, recording to a file) in
// a process of its own, and the floor of a forwarder, Go's own
// httputil.ReverseProxy (internal/testsupport/fixtures/reverseproxy), in another. The
// client sends at a fixed rate, the server itself, the proxy and the floor
// taking turns, so that all three see the same load; it reports the median
// and p99 of each, what the proxy adds, its ratio to the floor, and the CPU
// each forwarder's process spent per request.
//
// BenchmarkSessionMemory: the peak RSS of mcp-tester proxy over a stdio
// session of 100,000 messages (50,000 requests and their answers through a
// server that echoes), against one of 1,000 messages.

const benchRate = 200 // requests per second, both paths together

func BenchmarkAddedLatency(b *testing.B) {
	bin := testbin.Need(b, "./cmd/mcp-tester", "./internal/testsupport/fixtures/reverseproxy")
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.S}}}, nil, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	server := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})}
	go server.Serve(ln)
	defer server.Close()
	direct := "http://" + ln.Addr().String() + "/mcp"

	dir := b.TempDir()
	start := func(name string, args ...string) (*exec.Cmd, string) {
		addrFile := filepath.Join(dir, name+".addr")
		cmd := exec.Command(filepath.Join(bin, name), append(args, "--addr-file", addrFile)...)
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		})
		return cmd, "http://" + waitAddr(b, addrFile) + "/mcp"
	}
	proxy, via := start("mcp-tester", "proxy", "-o", filepath.Join(dir, "rec.jsonl"), "-u", direct)
	floorCmd, floor := start("reverseproxy", "-u", direct)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	call := func(u string, i int) time.Duration {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":"hello %d"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, i, i)
		req, _ := http.NewRequest("POST", u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if !bytes.Contains(got, []byte(fmt.Sprintf("hello %d", i))) {
			b.Fatalf("%s answered %d: %s", u, resp.StatusCode, got)
		}
		return d
	}
	for i := range 50 { // warm every path
		call(direct, i)
		call(via, i)
		call(floor, i)
	}
	cpu := func(c *exec.Cmd) time.Duration {
		t, err := cpuuse.Of(c.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	proxyCPU, floorCPU := cpu(proxy), cpu(floorCmd)
	b.ResetTimer()
	var d, v, f []time.Duration
	tick := time.NewTicker(time.Second / benchRate)
	defer tick.Stop()
	for i := range b.N {
		// The three paths take turns, so that each sees the same load.
		<-tick.C
		d = append(d, call(direct, i))
		<-tick.C
		v = append(v, call(via, i))
		<-tick.C
		f = append(f, call(floor, i))
	}
	b.StopTimer()
	proxyCPU, floorCPU = cpu(proxy)-proxyCPU, cpu(floorCmd)-floorCPU
	dm, d99 := percentile(d, 50), percentile(d, 99)
	vm, v99 := percentile(v, 50), percentile(v, 99)
	fm, f99 := percentile(f, 50), percentile(f, 99)
	b.ReportMetric(float64(dm.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(d99.Microseconds()), "direct-p99-µs")
	b.ReportMetric(float64(vm.Microseconds()), "proxy-p50-µs")
	b.ReportMetric(float64(v99.Microseconds()), "proxy-p99-µs")
	b.ReportMetric(float64(fm.Microseconds()), "floor-p50-µs")
	b.ReportMetric(float64(f99.Microseconds()), "floor-p99-µs")
	b.ReportMetric(float64((vm - dm).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64((fm - dm).Microseconds()), "floor-added-p50-µs")
	b.ReportMetric(float64(vm)/float64(dm), "proxy/direct-p50")
	b.ReportMetric(float64(vm)/float64(fm), "proxy/floor-p50")
	b.ReportMetric(float64(v99)/float64(f99), "proxy/floor-p99")
	b.ReportMetric(float64(proxyCPU.Microseconds())/float64(b.N), "proxy-cpu-µs/req")
	b.ReportMetric(float64(floorCPU.Microseconds())/float64(b.N), "floor-cpu-µs/req")
	b.ReportMetric(float64(proxyCPU)/float64(max(floorCPU, 1)), "proxy/floor-cpu")
	b.ReportMetric(0, "ns/op")
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func waitAddr(b *testing.B, file string) string {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if a, err := os.ReadFile(file); err == nil && len(a) > 0 {
			return strings.TrimSpace(string(a))
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("the proxy did not start")
	return ""
}

func BenchmarkSessionMemory(b *testing.B) {
	bin := testbin.Need(b, "./cmd/mcp-tester")
	for range b.N {
		small, smallRec := proxyRSS(b, bin, 500)
		large, largeRec := proxyRSS(b, bin, 50_000)
		b.ReportMetric(float64(small)/1024, "rss-MiB-1k-messages")
		b.ReportMetric(float64(large)/1024, "rss-MiB-100k-messages")
		b.ReportMetric(float64(large)/float64(small), "rss-100k/1k")
		b.ReportMetric(float64(smallRec)/(1<<20), "recording-MiB-1k")
		b.ReportMetric(float64(largeRec)/(1<<20), "recording-MiB-100k")
	}
	b.ReportMetric(0, "ns/op")
}

// proxyRSS runs a stdio proxy in front of cat for n requests (2n messages,
// each answered before the next is sent, as a client does) and returns
// its peak RSS in KiB and the size of its recording.
func proxyRSS(b *testing.B, bin string, n int) (int64, int64) {
	dir := b.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	cmd := exec.Command(filepath.Join(bin, "mcp-tester"), "proxy", "-o", rec, "--", "cat")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(out)
	for i := range n {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth-service","version":"2.4.1"},"inputResponses":{"target":{"action":"accept","content":{"environment":"production","confirm":true}}}}}`+"\n", i)
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	in.Close()
	io.Copy(io.Discard, br)
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(rec)
	return maxRSS(cmd.ProcessState), st.Size()
}

// BenchmarkForwardCost: one tools/call answered as an event stream, all in
// this process, sent to the server itself and through the proxy's Handler
// (forwarding, parsing and recording to a file): what the proxy costs,
// without a second process's scheduling (-benchmem: its allocations).
func BenchmarkForwardCost(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.S}}}, nil, nil
	})
	server := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer server.Close()
	f, err := os.Create(filepath.Join(b.TempDir(), "rec.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec, _ := recording.NewWriter(f, recording.Header{Transport: recording.TransportHTTP, Server: server.URL}, recording.WriterOptions{})
	u, _ := url.Parse(server.URL + "/mcp")
	recorded := httptest.NewServer(NewHandler(HTTPOptions{Server: u, Rec: rec}))
	defer recorded.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	for _, c := range []struct{ name, url string }{{"direct", server.URL}, {"proxy", recorded.URL}} {
		b.Run(c.name, func(b *testing.B) {
			for i := range b.N {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, i)
				req, _ := http.NewRequest("POST", c.url+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "echo")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
