package audit_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/askback/askback/internal/audit"
)

// bin is the folder holding the binaries the tests run.
var bin string

// TestMain builds the example servers and the fixture once.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "audit-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = dir
	code := func() int {
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"github.com/askback/askback/examples/deployer",
			"github.com/askback/askback/examples/conformance",
			"github.com/askback/askback/internal/fixtures/rulebreaker")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building the test servers:", err)
			return 2
		}
		return m.Run()
	}()
	os.Exit(code)
}

func asUnreachable(err error, target **audit.UnreachableError) bool {
	return errors.As(err, target)
}
