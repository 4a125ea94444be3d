package asktest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/rogpeppe/go-internal/txtar"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// The version of askback the module proxy of TestOutsideModule serves.
const outsideVersion = "v0.0.0-asktest"

// misbehaviours change the deployer of testdata/outside.txtar so that it
// breaks what its tests check: each replaces one piece of deploy.go, and
// names the tests that must fail then (the others must pass).
var misbehaviours = []struct {
	name, old, new string
	fail           []string
}{{
	name: "asks nothing",
	old:  "if !ask.Modes(req).Has(ask.Form) {",
	new:  "if true {",
	fail: []string{"TestAudit", "TestDecline", "TestDeploy", "TestScripts"},
}, {
	name: "takes a forged requestState",
	old:  "if err != nil { // forged, replayed, expired, or another call's\n\t\treturn nil, nil, reqstate.ClientError(err)",
	new:  "if err != nil { // forged, replayed, expired, or another call's\n\t\tst.Version = \"2.4.1\"",
	fail: []string{"TestAudit"},
}, {
	name: "deploys when declined",
	old:  `return ask.Stopped("Deployment not started", answer), nil, nil`,
	new:  `return text("Rolling out anyway."), nil, nil`,
	fail: []string{"TestDecline", "TestScripts"},
}, {
	name: "asks about another version",
	old:  `return "2.4.1"`,
	new:  `return "2.4.0"`,
	fail: []string{"TestDeploy", "TestScripts"},
}}

// A module of its own, which gets askback as a user's module does (from a
// module proxy: here one in a folder, serving the module as this working
// tree holds it, zipped by the Go command's rules), tests the deployer's
// deploy tool with asktest in under 40 lines (testdata/outside.txtar), and
// passes; and each of its tests fails when the deployer is changed to
// misbehave.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own from a module proxy")
	}
	ar, err := txtar.ParseFile("testdata/outside.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "deploy_test.go" {
			if n := bytes.Count(f.Data, []byte("\n")); n >= 40 {
				t.Errorf("the module's tests take %d lines, want under 40", n)
			}
		}
	}
	root, err := testbin.ModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	proxy := moduleProxy(t, root)
	work := t.TempDir()
	for _, f := range ar.Files {
		data := bytes.ReplaceAll(f.Data, []byte("VERSION"), []byte(outsideVersion))
		writeFile(t, filepath.Join(work, f.Name), data)
	}
	// askback's go.sum vouches for its dependencies (no checksum database
	// is asked); askback itself comes from the folder, unchecked.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "go.sum"), sum)
	env := outsideEnv(t, proxy)
	goCmd(t, work, env, "mod", "tidy")
	if out, err := goTest(work, env); err != nil {
		t.Fatalf("the module's tests fail:\n%s", out)
	}

	good, err := os.ReadFile(filepath.Join(work, "deploy.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Each misbehaving deployer is a package of its own in the module (the
	// package's files, deploy.go changed), all tested by one go command:
	// one load of the module's packages, not one each.
	type variant struct {
		pkg  string
		name string
		fail []string
	}
	var dirs []string
	var variants []variant
	for i, m := range misbehaviours {
		if !bytes.Contains(good, []byte(m.old)) {
			t.Errorf("%s: deploy.go has no %q to change", m.name, m.old)
			continue
		}
		dir := fmt.Sprintf("misbehaviour%d", i)
		for _, f := range ar.Files {
			if f.Name == "go.mod" {
				continue
			}
			data := bytes.ReplaceAll(f.Data, []byte("VERSION"), []byte(outsideVersion))
			if f.Name == "deploy.go" {
				data = bytes.Replace(good, []byte(m.old), []byte(m.new), 1)
			}
			writeFile(t, filepath.Join(work, dir, f.Name), data)
		}
		dirs = append(dirs, "./"+dir)
		variants = append(variants, variant{pkg: "example.test/deployer/" + dir, name: m.name, fail: m.fail})
	}
	if len(dirs) == 0 {
		return
	}
	results, err := goTestJSON(work, env, dirs)
	if err == nil {
		t.Errorf("go test passed the misbehaving deployers %v", dirs)
	}
	for _, v := range variants {
		r, ok := results[v.pkg]
		if !ok {
			t.Errorf("a deployer that %s: go test said nothing of %s (%v)", v.name, v.pkg, err)
			continue
		}
		if !slices.Equal(r.failed, v.fail) {
			t.Errorf("a deployer that %s: the failed tests are %v, want %v\n%s", v.name, r.failed, v.fail, r.output)
		}
	}
}

// moduleProxy writes a module proxy in a folder that serves askback at
// outsideVersion: the files of the working tree that git tracks or would
// (committed or not; ignored ones left out), zipped by the Go command's
// rules. It returns the folder.
func moduleProxy(t *testing.T, root string) string {
	t.Helper()
	const path = "github.com/askback/askback"
	proxy := t.TempDir()
	vdir := filepath.Join(proxy, path, "@v")
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []modzip.File
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		files = append(files, treeFile{root: root, name: name, fi: fi})
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: path, Version: outsideVersion}, files); err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": outsideVersion, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{
		outsideVersion + ".zip":  zip.Bytes(),
		outsideVersion + ".mod":  gomod,
		outsideVersion + ".info": info,
		"list":                   []byte(outsideVersion + "\n"),
	} {
		writeFile(t, filepath.Join(vdir, name), data)
	}
	return proxy
}

// treeFile is a file of the working tree, as the zip takes it.
type treeFile struct {
	root, name string
	fi         os.FileInfo
}

func (f treeFile) Path() string                 { return f.name }
func (f treeFile) Lstat() (os.FileInfo, error)  { return f.fi, nil }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.name)) }

// outsideEnv is the environment of the go command in the module: askback
// from the proxy in a folder, the dependencies from this machine's module
// cache (else the usual proxy), a module cache of its own, -trimpath so
// that the packages compiled once are found in the build cache again, and
// test binaries linked without DWARF (-w, as make links): five of them,
// each with asktest and the go-sdk, are linked every run.
func outsideEnv(t *testing.T, proxy string) []string {
	t.Helper()
	goEnv := func(key string) string {
		out, err := exec.Command("go", "env", key).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	upstream := "file://" + filepath.Join(goEnv("GOMODCACHE"), "cache", "download")
	if p := goEnv("GOPROXY"); p != "" && p != "off" {
		upstream += "," + p
	}
	return append(os.Environ(),
		"GOPROXY=file://"+proxy+","+upstream,
		"GOMODCACHE="+filepath.Join(t.TempDir(), "mod"),
		"GOFLAGS=-modcacherw -trimpath -ldflags=-w",
		"GONOSUMDB=github.com/askback/askback", "GOPRIVATE=", "GONOPROXY=",
		"GOWORK=off", "GOTOOLCHAIN=local")
}

func goCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// goTest runs the module's tests, verbose.
func goTest(dir string, env []string) (string, error) {
	cmd := exec.Command("go", "test", "-count=1", "-v", ".")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pkgResult is what go test -json said of one package: its top-level
// tests that failed, sorted, and its output.
type pkgResult struct {
	failed []string
	output string
}

// goTestJSON runs the tests of the packages pkgs in one go command and
// returns what it said of each, by import path. A package that does not
// build has no failed test and its compiler's errors as its output.
func goTestJSON(dir string, env []string, pkgs []string) (map[string]*pkgResult, error) {
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-json"}, pkgs...)...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	results := map[string]*pkgResult{}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var ev struct {
			Action, Package, ImportPath, Test, Output string
		}
		if dec.Decode(&ev) != nil {
			break
		}
		if ev.Package == "" {
			// The compiler's output, by the package it builds.
			ev.Package, _, _ = strings.Cut(ev.ImportPath, " ")
		}
		r := results[ev.Package]
		if r == nil {
			r = &pkgResult{}
			results[ev.Package] = r
		}
		r.output += ev.Output
		if ev.Action == "fail" && ev.Test != "" && !strings.Contains(ev.Test, "/") {
			r.failed = append(r.failed, ev.Test)
		}
	}
	for _, r := range results {
		slices.Sort(r.failed)
		r.output += stderr.String()
	}
	return results, err
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
