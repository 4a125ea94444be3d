package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/iostreams"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkDeployCall runs the deploy example's accept transcript through mcp-tester
// (in process, against the real deployer over stdio).
func BenchmarkDeployCall(b *testing.B) {
	bin := buildServers(b)
	b.Setenv("DEPLOY_STATE_KEY", "0123456789abcdef0123456789abcdef")
	args := []string{"call", "deploy", "-c", filepath.Join(bin, "deployer"), "--args", `{"service":"auth-service"}`,
		"--elicit", `accept:{"environment":"production","confirm":true}`}
	for b.Loop() {
		io, _, _, errOut := iostreams.Test()
		if code := cli.Main(context.Background(), io, args); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
}

// BenchmarkDeployCallFloor is the floor for BenchmarkDeployCall: a minimal
// go-sdk client making the same call and giving the same answer.
func BenchmarkDeployCallFloor(b *testing.B) {
	bin := buildServers(b)
	b.Setenv("DEPLOY_STATE_KEY", "0123456789abcdef0123456789abcdef")
	for b.Loop() {
		floorCall(b, exec.Command(filepath.Join(bin, "deployer")), "deploy", map[string]any{"service": "auth-service"})
	}
}

// BenchmarkLingeringServer calls a server that does not exit when its input
// closes (as many Node.js servers do): the tester's short grace bounds the
// wait. Compare with BenchmarkPromptServer, the same call to a server that
// exits at once.
func BenchmarkLingeringServer(b *testing.B) {
	bin := buildServers(b)
	args := []string{"call", "echo", "-c", filepath.Join(bin, "askserver") + " -linger 10s"}
	for b.Loop() {
		io, _, _, errOut := iostreams.Test()
		if code := cli.Main(context.Background(), io, args); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
}

// BenchmarkPromptServer is the baseline of BenchmarkLingeringServer.
func BenchmarkPromptServer(b *testing.B) {
	bin := buildServers(b)
	args := []string{"call", "echo", "-c", filepath.Join(bin, "askserver")}
	for b.Loop() {
		io, _, _, errOut := iostreams.Test()
		if code := cli.Main(context.Background(), io, args); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
}

func floorCall(b *testing.B, cmd *exec.Cmd, tool string, args map[string]any) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "floor"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond}, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		b.Fatalf("call: %v %v", err, res)
	}
	cs.Close()
}
