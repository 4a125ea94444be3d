package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
)

// An interrupt (Ctrl-C: the context Main is given ends) says so and exits
// 130, not with what it did to the server ("exited before it answered",
// exit 3).
func TestInterruptedSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	io, _, _, errOut := iostreams.Test()
	code := Main(ctx, io, []string{"ping", "-c", "sleep 100"})
	if code != ExitInterrupted || strings.TrimSpace(errOut.String()) != "mcp-tester: interrupted" {
		t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, errOut.String())
	}
}
