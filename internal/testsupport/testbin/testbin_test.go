package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const hello = "./internal/testsupport/testbin/testdata/hello"

// Processes of one run that ask for the same binary at the same time get
// one build: the second finds the first's binary.
func TestOneBuildPerRun(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	infos := make([]os.FileInfo, 2)
	for i := range infos {
		wg.Go(func() {
			r, err := Open(root, "1-1")
			if err != nil {
				t.Error(err)
				return
			}
			dir, err := r.Build(hello)
			if err != nil {
				t.Error(err)
				return
			}
			infos[i], err = os.Stat(filepath.Join(dir, "hello"))
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if !os.SameFile(infos[0], infos[1]) || !infos[0].ModTime().Equal(infos[1].ModTime()) {
		t.Error("the binary was built twice")
	}
	out, err := exec.Command(filepath.Join(root, prefix+"1-1", "hello")).Output()
	if err != nil || string(out) != "hello\n" {
		t.Errorf("the built binary: %q, %v", out, err)
	}
}

// A failed build says which packages and why, and leaves no binary.
func TestBuildFailure(t *testing.T) {
	root := t.TempDir()
	r, err := Open(root, "1-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Build("./internal/testsupport/testbin/testdata/nosuch")
	if err == nil {
		t.Fatal("no error")
	}
	if want := "go build " + Module + "/internal/testsupport/testbin/testdata/nosuch"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "nosuch")); !os.IsNotExist(err) {
		t.Errorf("a binary was left: %v", err)
	}
}

// The folders of ended runs are removed unless a process still uses them;
// the folders of runs still going are kept.
func TestPrune(t *testing.T) {
	root := t.TempDir()
	self := strconv.Itoa(os.Getpid()) + "-" + startTime(os.Getpid())
	if !alive(self) {
		t.Fatalf("this process (%s) is not alive", self)
	}
	const ended, endedInUse, next = "999999999-1", "999999998-1", "999999997-1"
	runs := map[string]*Run{}
	for _, id := range []string{self, ended, endedInUse} {
		r, err := Open(root, id)
		if err != nil {
			t.Fatal(err)
		}
		runs[id] = r
	}
	// The process of the ended run exits: its lock goes with it. The other
	// ended run still has a process using its folder.
	runs[ended].inUse.Close()
	if _, err := Open(root, next); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{self: true, ended: false, endedInUse: true, next: true} {
		_, err := os.Stat(filepath.Join(root, prefix+id))
		if got := err == nil; got != want {
			t.Errorf("folder of run %s kept: %v, want %v", id, got, want)
		}
	}
}

// A later run whose sources did not change gets the binary an earlier run
// linked, not a new link of it; the earlier run's folder keeps its binary.
func TestLaterRunLinksNothingNew(t *testing.T) {
	root := t.TempDir()
	var infos []os.FileInfo
	for _, id := range []string{"1-1", "2-2"} {
		r, err := Open(root, id)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := r.Build(hello)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, "hello"))
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, fi)
	}
	if !os.SameFile(infos[0], infos[1]) {
		t.Error("the second run linked the binary again")
	}
}

// The stage folder of a module that is gone is removed; that of a module
// still there is kept.
func TestPruneStage(t *testing.T) {
	root := t.TempDir()
	gone, kept := filepath.Join(root, stagePrefix+"gone"), filepath.Join(root, stagePrefix+"kept")
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, m := range map[string]string{gone: filepath.Join(root, "nosuch"), kept: mod} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "module"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(root, "1-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the stage of a module that is gone was kept: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the stage of a module still there was removed: %v", err)
	}
}

// A stage folder whose module file is being written (it reads empty for a
// moment) is not taken for one whose module is gone: another process of
// the run was removing the stage a build was about to lock.
func TestPruneLeavesAStageBeingMade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), stagePrefix+"x")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "module"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pruneStage(dir)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the stage being made was removed: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "module"), []byte(filepath.Join(t.TempDir(), "gone")), 0o644); err != nil {
		t.Fatal(err)
	}
	pruneStage(dir)
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the stage of a module that is gone was kept")
	}
}

// A binary the folder of built binaries holds is linked from there, not
// built; one it lacks is built as without it.
func TestBuiltBinariesAreTakenAsTheyAre(t *testing.T) {
	root := t.TempDir()
	built := t.TempDir()
	script := "#!/bin/sh\necho prebuilt\n"
	if err := os.WriteFile(filepath.Join(built, "hello"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(root, "1-1")
	if err != nil {
		t.Fatal(err)
	}
	r.Built = built
	dir, err := r.Build(hello)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(dir, "hello")).Output()
	if err != nil || string(out) != "prebuilt\n" {
		t.Errorf("the binary of the built folder: %q, %v", out, err)
	}

	r2, err := Open(root, "2-2")
	if err != nil {
		t.Fatal(err)
	}
	r2.Built = t.TempDir() // holds no hello
	dir, err = r2.Build(hello)
	if err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(filepath.Join(dir, "hello")).Output()
	if err != nil || string(out) != "hello\n" {
		t.Errorf("the binary built for want of one: %q, %v", out, err)
	}
}
