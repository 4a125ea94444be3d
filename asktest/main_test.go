package asktest_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveEnv, set in its environment, makes the test binary the test server
// over stdio: what the examples of Command start.
const serveEnv = "ASKTEST_SERVE_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		if err := newServer(broken{}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
