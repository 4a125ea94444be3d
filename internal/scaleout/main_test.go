package scaleout_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/askback/askback/internal/scaleout"
)

// bin holds the server binaries the tests start, built once.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scaleout-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		root, err := scaleout.ModuleRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := scaleout.Build(root, dir, "./examples/deployer", "./examples/oldway"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		bin = dir
		return m.Run()
	}()
	os.Exit(code)
}

func binary(name string) string { return filepath.Join(bin, name) }

func itoa(n int) string { return strconv.Itoa(n) }

// runDeployer runs the deployer to completion (bounded) and returns its
// output.
func runDeployer(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary("deployer"), args...)
	cmd.Env = append(os.Environ(), stateKey)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
