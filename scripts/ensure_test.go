// Package scripts holds the shell scripts of the build; its tests run them
// against fake package managers.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSystem is a PATH with the tools the ensure scripts use but not the
// program they install, and a fake apt-get that reports the package
// manager's lock as held for its first `busy` runs, then installs a fake
// tmux.
func fakeSystem(t *testing.T, busy int) (path, calls string) {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range []string{"bash", "sh", "sleep", "grep", "cat", "rm", "chmod", "dirname", "printf", "mkdir", "seq", "wc", "tr"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	calls = filepath.Join(bin, "calls")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("id", "echo 0\n")
	write("apt-cache", "exit 0\n")
	write("apt-get", `echo "$*" >> '`+calls+`'
n=$(wc -l < '`+calls+`')
if [ "$n" -le `+strconv.Itoa(busy)+` ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
  echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
  exit 100
fi
case "$*" in *install*) printf '#!/bin/bash\n' > '`+bin+`/tmux'; chmod +x '`+bin+`/tmux';; esac
exit 0
`)
	return bin, calls
}

func runEnsure(t *testing.T, path string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(path, "bash"), "ensure-tmux.sh")
	cmd.Env = append([]string{"PATH=" + path, "APT_LOCK_POLL=0.05"}, env...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() {
		out, err = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("ensure-tmux.sh did not end within 60s")
	}
	return string(out), err
}

// A busy package manager is waited for: the install goes through once the
// other run lets go of the lock.
func TestEnsureWaitsForThePackageManagersLock(t *testing.T) {
	path, calls := fakeSystem(t, 3)
	out, err := runEnsure(t, path)
	if err != nil {
		t.Fatalf("ensure-tmux.sh failed while another install held the lock: %v\n%s", err, out)
	}
	if !strings.Contains(out, "waiting for it") {
		t.Errorf("it did not say it was waiting:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(path, "tmux")); err != nil {
		t.Errorf("tmux was not installed: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(calls)
	if !strings.Contains(string(b), "DPkg::Lock::Timeout") {
		t.Errorf("apt-get was not asked to wait for the dpkg lock itself: %s", b)
	}
}

// The wait is bounded: a lock that is never released ends in a clear error.
func TestEnsureGivesUpOnALockHeldForever(t *testing.T) {
	path, _ := fakeSystem(t, 1000)
	out, err := runEnsure(t, path, "APT_LOCK_WAIT=1")
	if err == nil {
		t.Fatalf("ensure-tmux.sh succeeded although the lock was never released:\n%s", out)
	}
	if !strings.Contains(out, "still held after 1s") {
		t.Errorf("the error does not say the lock stayed held:\n%s", out)
	}
}
