// Package sariftest checks SARIF logs in tests against the published
// SARIF 2.1.0 JSON schema and with the SARIF SDK's own validator, both
// from the npm package that scripts/ensure-sarif.sh installs (pinned by
// internal/report/sarif/testdata/validator/package-lock.json). The schema is
// never copied into the repository.
//
// Without the package a test is skipped and says how to install it; on CI
// (CI set in the environment) it fails instead, so that a missing install
// never passes for a valid log.
package sariftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// Dir is the folder of the validator's package.json, from the module
// root.
const Dir = "internal/report/sarif/testdata/validator"

// The installed package's files, from Dir.
const (
	schemaFile    = "node_modules/@microsoft/sarif-multitool-linux/sarif-2.1.0.json"
	multitoolFile = "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
	stampFile     = "node_modules/.installed-lock-sha256"
)

// Ready reports whether the validator is installed under the module root.
func Ready(root string) bool {
	_, err := os.Stat(filepath.Join(root, Dir, stampFile))
	return err == nil
}

// Validator checks SARIF logs against the schema.
type Validator struct {
	schema    *jsonschema.Resolved
	multitool string
}

// Load reads the schema installed under the module root.
func Load(root string) (*Validator, error) {
	if !Ready(root) {
		return nil, fmt.Errorf("the SARIF validator is not installed in %s: run scripts/ensure-sarif.sh (make setup does)", Dir)
	}
	b, err := os.ReadFile(filepath.Join(root, Dir, schemaFile))
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read the SARIF schema: %w", err)
	}
	if !strings.Contains(s.Title, "SARIF") || !strings.Contains(s.Title, "2.1.0") {
		return nil, fmt.Errorf("%s is not the SARIF 2.1.0 schema (its title: %q)", schemaFile, s.Title)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve the SARIF schema: %w", err)
	}
	return &Validator{schema: r, multitool: filepath.Join(root, Dir, multitoolFile)}, nil
}

// Check validates one SARIF log against the schema, and checks what the
// schema cannot say but code scanning needs: version 2.1.0, every result's
// rule listed in its run, every region starting at a line.
func (v *Validator) Check(doc []byte) error {
	if err := v.checkSchema(doc); err != nil {
		return err
	}
	var log scanningLog
	if err := json.Unmarshal(doc, &log); err != nil {
		return err
	}
	if log.Version != "2.1.0" {
		return fmt.Errorf("version %q, want 2.1.0", log.Version)
	}
	for i, run := range log.Runs {
		if err := run.check(i); err != nil {
			return err
		}
	}
	return nil
}

// checkSchema refuses doc unless it is one JSON value valid against the
// SARIF 2.1.0 schema.
func (v *Validator) checkSchema(doc []byte) error {
	var val any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&val); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	// The validator reads numbers as float64.
	var plain any
	if err := json.Unmarshal(doc, &plain); err != nil {
		return err
	}
	if err := v.schema.Validate(plain); err != nil {
		return fmt.Errorf("not valid against the SARIF 2.1.0 schema: %w", err)
	}
	return nil
}

// scanningLog is what Check reads of a log beyond the schema.
type scanningLog struct {
	Version string        `json:"version"`
	Runs    []scanningRun `json:"runs"`
}

// scanningRun is what Check reads of one run: its rules' ids, and its
// results' rules and regions.
type scanningRun struct {
	Tool struct {
		Driver struct {
			Rules []struct {
				ID string `json:"id"`
			} `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results []struct {
		RuleID    string `json:"ruleId"`
		RuleIndex *int   `json:"ruleIndex"`
		Locations []struct {
			PhysicalLocation *struct {
				Region *struct {
					StartLine int `json:"startLine"`
				} `json:"region"`
			} `json:"physicalLocation"`
		} `json:"locations"`
	} `json:"results"`
}

// check refuses run i unless every result's rule is listed in the run,
// its ruleIndex points at it, and each of its regions starts at a line.
func (run *scanningRun) check(i int) error {
	ids := map[string]int{}
	for n, r := range run.Tool.Driver.Rules {
		ids[r.ID] = n
	}
	for j, res := range run.Results {
		n, ok := ids[res.RuleID]
		if !ok {
			return fmt.Errorf("runs[%d].results[%d]: rule %q is not in the run's rules", i, j, res.RuleID)
		}
		if res.RuleIndex == nil || *res.RuleIndex != n {
			return fmt.Errorf("runs[%d].results[%d]: ruleIndex does not point at rule %q", i, j, res.RuleID)
		}
		for k, loc := range res.Locations {
			if p := loc.PhysicalLocation; p != nil && p.Region != nil && p.Region.StartLine < 1 {
				return fmt.Errorf("runs[%d].results[%d].locations[%d]: a region without a start line", i, j, k)
			}
		}
	}
	return nil
}

// Multitool runs the SARIF SDK's validator (`Sarif.Multitool validate`,
// with its SARIF rules and code scanning's) on the files and returns the
// problems it reports at level error, one a line; warnings are returned
// apart.
func (v *Validator) Multitool(ctx context.Context, files ...string) (errs, warnings []string, err error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("sariftest-%d-%d.sarif", os.Getpid(), time.Now().UnixNano()))
	defer os.Remove(out)
	args := append([]string{"validate", "--rule-kind", "Sarif;Gh", "--log", "ForceOverwrite", "-o", out}, files...)
	cmd := exec.CommandContext(ctx, v.multitool, args...)
	// The validator is a .NET program: no telemetry, no first-run notes.
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
	text, runErr := cmd.CombinedOutput()
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, nil, fmt.Errorf("Sarif.Multitool validate wrote no log (%v): %s", runErr, text)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, nil, fmt.Errorf("read Sarif.Multitool's log: %w", err)
	}
	for _, run := range log.Runs {
		for _, r := range run.Results {
			line := fmt.Sprintf("%s %s %s", r.RuleID, r.Message.ID, strings.Join(r.Message.Arguments, " | "))
			if isError(r.Level, r.RuleID) {
				errs = append(errs, line)
			} else {
				warnings = append(warnings, line)
			}
		}
	}
	if runErr != nil && len(errs) == 0 {
		return nil, warnings, fmt.Errorf("Sarif.Multitool validate: %v: %s", runErr, text)
	}
	return errs, warnings, nil
}

// need is the validator of this test process, loaded once.
var need = sync.OnceValues(func() (*Validator, error) {
	root, err := testbin.ModuleDir()
	if err != nil {
		return nil, err
	}
	return Load(root)
})

// Need returns the validator, or skips the test when it is not installed
// (fails it on CI).
func Need(t testing.TB) *Validator {
	t.Helper()
	v, err := need()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v", err)
		}
		t.Skipf("%v", err)
	}
	return v
}

// Validate fails the test when doc is not a valid SARIF 2.1.0 log.
func Validate(t testing.TB, doc []byte) {
	t.Helper()
	if err := Need(t).Check(doc); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
}

// isError reports whether a result of the validator's (at level, of the
// rule ruleID) is an error: one without a level is a warning, the
// validator's rules defaulting to it, unless its rule is one of code
// scanning's (GH…).
func isError(level, ruleID string) bool {
	switch level {
	case "":
		return strings.HasPrefix(ruleID, "GH")
	case "warning", "note", "none":
		return false
	}
	return true
}
