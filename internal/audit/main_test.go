package audit_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/askback/askback/internal/audit"
)

// bin is the folder holding the binaries the tests run, built on first
// use so that unit and fuzz runs do not wait for them.
var (
	bin      string
	buildErr error
	built    sync.Once
)

// needBin builds the example servers and the fixture once.
func needBin(t testing.TB) {
	t.Helper()
	built.Do(func() {
		cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
			"github.com/askback/askback/examples/deployer",
			"github.com/askback/askback/examples/conformance",
			"github.com/askback/askback/examples/github-connect",
			"github.com/askback/askback/internal/fixtures/rulebreaker")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the test servers: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "audit-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func asUnreachable(err error, target **audit.UnreachableError) bool {
	return errors.As(err, target)
}
