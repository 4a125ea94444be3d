// Package testbin builds the module's commands (the CLI, the examples, the
// fixture servers) for tests that run them as processes, each binary once per
// `go test` run.
//
// `go test ./...` runs every package's tests in a process of its own, all
// children of one go command. The binaries live in a folder named after that
// go command (its process id and start time): the first test process that
// needs a binary builds it there, under a file lock, and every later process
// of the same run finds it built. A test binary started some other way (by
// hand, under -exec) gets a folder of its own. A run's folder is removed by
// a later run once the go command that owned it has ended and no process uses
// it any more.
//
// The binaries are linked in a folder that outlives the runs, one per module
// folder (a checkout, a worktree), and the run's folder gets hard links to
// them: go build relinks only the binaries whose sources changed since an
// earlier run, so a run whose binaries are up to date spends no time linking
// them. go build replaces a binary it relinks (a new file, never one written
// over), so a run still using the earlier binary keeps it.
//
// Where the environment names a folder of binaries built already
// (ASKBACK_TEST_BIN: make test's unit step names bin/, which make build has
// just built from the same sources), a binary found there is linked into the
// run's folder instead of being built: the tests then run the binaries a
// reader of the documents runs, stamped with their commit, and no second
// link of them is made.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Module is the import path of this module; Build accepts package paths
// relative to it ("./examples/deployer").
const Module = "github.com/askback/askback"

// prefix starts the name of every run folder in the temporary directory,
// stagePrefix that of every folder the binaries are linked in.
const (
	prefix      = "askback-testbin-"
	stagePrefix = "askback-teststage-"
)

// Need returns the folder holding the binaries of pkgs, building those this
// run has not built yet, and fails t when a build fails. A binary is named
// after the last element of its package path: "./examples/deployer" is
// Need(t, ...)/deployer.
func Need(t testing.TB, pkgs ...string) string {
	t.Helper()
	dir, err := Build(pkgs...)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Path returns the path of one package's binary, built as Need builds it.
func Path(t testing.TB, pkg string) string {
	t.Helper()
	return filepath.Join(Need(t, pkg), path.Base(pkg))
}

// BuiltEnv names the environment variable that names a folder of binaries
// built already, up to date with the sources (make test sets it to bin/):
// Build takes a binary from there when it holds one of that name.
const BuiltEnv = "ASKBACK_TEST_BIN"

// Build is Need for code without a testing.TB, such as TestMain.
func Build(pkgs ...string) (string, error) {
	runOnce.Do(func() {
		run, runErr = Open(os.TempDir(), RunID())
		if runErr == nil {
			run.Built = os.Getenv(BuiltEnv)
		}
	})
	if runErr != nil {
		return "", runErr
	}
	return run.Build(pkgs...)
}

// The folder of this process's run, opened on first use.
var (
	runOnce sync.Once
	run     *Run
	runErr  error
)

// Run is the folder of one run's binaries.
type Run struct {
	// Dir is the folder the binaries are built into.
	Dir string

	// Built, when set, is a folder of binaries built already from the same
	// sources: a binary found there is linked into Dir (a symbolic link),
	// not built.
	Built string

	// inUse is held with a shared lock for as long as the process lives,
	// so that no other run removes the folder while it is used.
	inUse *os.File
	mu    sync.Mutex
}

// Open opens (creating it if needed) the folder of the run with the given
// identity under root, and removes the folders of runs that have ended.
func Open(root, id string) (*Run, error) {
	prune(root, id)
	dir := filepath.Join(root, prefix+id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("test binaries: %w", err)
	}
	f, err := lockFile(dir, "in-use.lock", false)
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, inUse: f}, nil
}

// Build builds into r.Dir the binaries of pkgs that are not there yet, in
// one go build, while holding the run's build lock: processes of one run
// never build the same binary twice.
func (r *Run) Build(pkgs ...string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lock, err := lockFile(r.Dir, "build.lock", true)
	if err != nil {
		return "", err
	}
	defer lock.Close() // closing ends the lock

	var missing []string
	for _, p := range pkgs {
		name := path.Base(p)
		if _, err := os.Stat(filepath.Join(r.Dir, name)); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if ok, err := r.linkBuilt(name); err != nil {
			return "", err
		} else if !ok {
			missing = append(missing, importPath(p))
		}
	}
	if len(missing) == 0 {
		return r.Dir, nil
	}
	stage, err := openStage(filepath.Dir(r.Dir))
	if err != nil {
		return "", err
	}
	defer stage.Close()
	// go build links only what changed since the stage's binaries were
	// linked; a failed build links nothing into the run's folder.
	cmd := exec.Command("go", append([]string{"build", "-o", filepath.Dir(stage.Name()) + string(filepath.Separator)}, missing...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", strings.Join(missing, " "), err, out)
	}
	for _, p := range missing {
		name := path.Base(p)
		if err := os.Link(filepath.Join(filepath.Dir(stage.Name()), name), filepath.Join(r.Dir, name)); err != nil {
			return "", fmt.Errorf("test binaries: %w", err)
		}
	}
	return r.Dir, nil
}

// linkBuilt links the binary name of r.Built into r.Dir, reporting whether
// r.Built holds one (a regular, executable file).
func (r *Run) linkBuilt(name string) (bool, error) {
	if r.Built == "" {
		return false, nil
	}
	src, err := filepath.Abs(filepath.Join(r.Built, name))
	if err != nil {
		return false, fmt.Errorf("test binaries: %w", err)
	}
	if fi, err := os.Stat(src); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return false, nil
	}
	if err := os.Symlink(src, filepath.Join(r.Dir, name)); err != nil {
		return false, fmt.Errorf("test binaries: %w", err)
	}
	return true, nil
}

// openStage opens, locked, the stage folder under root of the module that
// holds the working directory: the folder go build links the binaries in.
// Its lock file is returned; closing it ends the lock. The folder records
// its module's folder, so that prune removes it once the module is gone.
func openStage(root string) (*os.File, error) {
	mod, err := ModuleDir()
	if err != nil {
		return nil, fmt.Errorf("test binaries: %w", err)
	}
	sum := sha256.Sum256([]byte(mod))
	dir := filepath.Join(root, stagePrefix+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("test binaries: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "module"), []byte(mod), 0o644); err != nil {
		return nil, fmt.Errorf("test binaries: %w", err)
	}
	return lockFile(dir, "stage.lock", true)
}

// lockFile opens (creating it if needed) the lock file name in dir and
// locks it, exclusive or shared, waiting for the lock; closing the file
// ends the lock.
func lockFile(dir, name string, exclusive bool) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("test binaries: %w", err)
	}
	if err := lock(f, exclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("test binaries: lock %s: %w", dir, err)
	}
	return f, nil
}

// ModuleDir is the folder of the go.mod above the working directory: the
// module's root when a test runs in one of its packages.
func ModuleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// importPath turns a package path relative to the module into an import
// path; other paths are returned as they are.
func importPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "./"); ok {
		return Module + "/" + rest
	}
	return p
}

// RunID names the current run: the go command that started this test
// process ("PID-STARTTIME"), or this process when it was not started by
// go test.
func RunID() string {
	pid := os.Getppid()
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || strings.TrimSpace(string(comm)) != "go" {
		pid = os.Getpid()
	}
	return strconv.Itoa(pid) + "-" + startTime(pid)
}

// startTime is the start time of process pid in clock ticks since boot, as
// /proc says, or "0" where there is no /proc.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "0"
	}
	// The command name, in parentheses, may hold spaces: count the fields
	// after its closing parenthesis (the state is field 3, the start time
	// field 22).
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return "0"
	}
	return fields[19]
}

// alive reports whether the run with identity id is still going.
func alive(id string) bool {
	pidText, start, ok := strings.Cut(id, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil {
		return false
	}
	if start == "0" {
		return processExists(pid)
	}
	return startTime(pid) == start
}

// prune removes the folders of ended runs that no process uses.
func prune(root, current string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, ok := strings.CutPrefix(e.Name(), stagePrefix); ok && e.IsDir() {
			pruneStage(filepath.Join(root, e.Name()))
			continue
		}
		id, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || id == current || !e.IsDir() || alive(id) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		f, err := os.Open(filepath.Join(dir, "in-use.lock"))
		if errors.Is(err, os.ErrNotExist) {
			os.RemoveAll(dir) // its process ended before taking the lock
			continue
		}
		if err != nil {
			continue
		}
		if tryLockExclusive(f) {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}

// pruneStage removes a stage folder whose module is gone.
func pruneStage(dir string) {
	mod, err := os.ReadFile(filepath.Join(dir, "module"))
	if err != nil || !filepath.IsAbs(string(mod)) {
		// Being made (a module file being written reads empty for a
		// moment, and would name a go.mod relative to here), or not ours.
		return
	}
	if _, err := os.Stat(filepath.Join(string(mod), "go.mod")); errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(dir)
	}
}
