package audit_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// testServers are the servers the tests audit, built once per go test run.
var testServers = []string{
	"./examples/deployer",
	"./examples/conformance",
	"./examples/github-connect",
	"./internal/testsupport/fixtures/rulebreaker",
}

// binary returns the path of the test server named name.
func binary(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(testbin.Need(t, testServers...), name)
}

func asUnreachable(err error, target **audit.UnreachableError) bool {
	return errors.As(err, target)
}
