package scaleout_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// binary returns the path of the example server named name, built once
// per go test run.
func binary(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(testbin.Need(t, "./examples/deployer", "./examples/oldway"), name)
}

func itoa(n int) string { return strconv.Itoa(n) }

// runDeployer runs the deployer to completion (bounded) and returns its
// output.
func runDeployer(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // against a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t, "deployer"), args...)
	cmd.Env = append(os.Environ(), stateKey)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
