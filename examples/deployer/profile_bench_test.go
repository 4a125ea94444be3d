package main

import (
	"context"
	"flag"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// profileFlows is how many two-round deploy flows BenchmarkDeployerProfile
// profiles per iteration.
const profileFlows = 2000

// BenchmarkDeployerProfile says where the deployer's CPU goes in a
// two-round deploy flow (input_required, then the retry with the answer
// and a sealed single-use state) under load: the deployer runs in this
// process as `deployer -http` serves it (memory stores, the default flags),
// and `yardstick flows`, the minimal go-sdk client, drives profileFlows
// flows from 8 workers as a process of its own, so that every CPU sample
// of this process is the server's. The samples are sorted into the parts
// of profileParts and each part reported as a percentage of the whole
// (gc-%, sdk-json-%, sdk-other-%, askback-%, net-%, rest-%), with the range over
// the iterations (-benchtime 3x: three profiles). Needs `go tool pprof`.
func BenchmarkDeployerProfile(b *testing.B) {
	yard := filepath.Join(testbin.Need(b, "./internal/testsupport/fixtures/yardstick"), "yardstick")
	fs := flag.NewFlagSet("deployer", flag.ContinueOnError)
	df := registerDeployFlags(fs)
	if err := fs.Parse(nil); err != nil {
		b.Fatal(err)
	}
	st, err := openStores(context.Background(), df)
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	srv, err := newServer("bench-key-0123456789abcdef-0123456789", st, &rolloutOptions{Step: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	ho := &httpserve.Options{MaxBody: maxRequestBody}
	if df.http != nil {
		if err := df.http.Apply(ho); err != nil {
			b.Fatal(err)
		}
	}
	h := httpHandler(srv, df)
	hs := httptest.NewUnstartedServer(h)
	hs.Config = httpserve.Server(h, ho)
	hs.Start()
	defer hs.Close()
	flows := func(n int) {
		out, err := exec.Command(yard, "flows", "-u", hs.URL+"/mcp", "-n", strconv.Itoa(n), "-workers", "8").CombinedOutput()
		if err != nil {
			b.Fatalf("yardstick flows: %v\n%s", err, out)
		}
	}
	done := benchratio.LoadWatch(b)
	flows(200) // warm up
	benchratio.ReportProfiles(b, deployerParts, func() error { flows(profileFlows); return nil })
	done()
}

// deployerParts are the parts a CPU sample of the deployer is counted in,
// in the order they are tried.
var deployerParts = []benchratio.Part{
	benchratio.GC,
	benchratio.SDKJSON,
	{Name: "sdk-other", What: "the rest of the go-sdk: JSON-RPC, the Streamable HTTP handler, schema validation of the arguments, encoding the results (with the standard library it calls)",
		In: benchratio.Owner(owners, "github.com/modelcontextprotocol/go-sdk/")},
	{Name: "askback", What: "the project's own code: the form, ask and reqstate packages (the sealed single-use state: claims, AES-GCM, the argument digest, the replay store), the endpoint and httpserve wrappers, the handler (with the standard library they call)",
		In: ownCode},
	{Name: "net", What: "the standard library's HTTP server and connections outside the handlers (reading requests and headers, writing, the sockets' system calls)",
		In: benchratio.AnyPrefix("net/http.", "net.", "internal/poll.", "bufio.")},
	{Name: "rest", What: "everything else: the scheduler (goroutines parked and woken, threads spinning for work), timers", In: func([]string) bool { return true }},
}

// owners are the code a sample's time is counted for (see benchratio.Owner).
var owners = []string{"github.com/modelcontextprotocol/go-sdk/", "github.com/askback/askback/"}

// ownCode is the deployer's and the project's code, not the benchmark's.
func ownCode(stack []string) bool {
	return benchratio.Owner(owners, "github.com/askback/askback/")(stack) &&
		!benchratio.AnyPrefix("github.com/askback/askback/internal/bench/benchratio.", "github.com/askback/askback/examples/deployer.BenchmarkDeployerProfile")(stack)
}
