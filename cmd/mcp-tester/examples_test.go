package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/testsupport/docexamples"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/spf13/cobra"
)

// The examples of every command's --help run as written from the
// repository root after make build, as docExamples runs a document's (see
// TestDocExamplesRun); their output is not checked, each must succeed.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example")
	}
	root := exampleRoot(t)
	ios, _, _, _ := iostreams.Test()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			name := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "mcp-tester"))
			if name == "" {
				name = "mcp-tester"
			}
			cmds := docexamples.HelpCommands(c.CommandPath()+" --help, example", c.Example)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := runDocExamples(t, root, cmds)
				// A report or a recording goes to a temporary path, not
				// into the folder the reader runs the example in.
				entries, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if fi, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil && fi.Mode()&os.ModeSymlink == 0 && !strings.HasPrefix(e.Name(), ".") {
						t.Errorf("the examples wrote %s into the working directory: write it to a temporary path (/tmp/…)", e.Name())
					}
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(cli.NewRootCmd(ios))
}

// Every example of README.md and docs/*.md runs as written from the
// repository root after make build, or is marked as shown only; the rules
// a document follows are internal/testsupport/docexamples' (and docs/ARCHITECTURE.md's
// "Examples in the documents run"). A document's commands run in order in
// one bash, in a copy of the root (bin/ holding what make build builds,
// every other entry linked to the repository's), with its own home
// directory, so that the files they write stay there; a block that is a
// repository file (file=PATH) must be that file, byte for byte.
func TestDocExamplesRun(t *testing.T) {
	repo := moduleRoot(t)
	docs, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(repo, "README.md")}, docs...)
	var root string
	tmpUsers := map[string]string{} // a /tmp path a document's commands use: the first document
	for _, path := range docs {
		name, _ := filepath.Rel(repo, path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, errs := docexamples.Parse(name, string(src))
		for _, e := range errs {
			t.Error(e)
		}
		for _, b := range blocks {
			if b.Path == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(repo, b.Path))
			if err != nil {
				t.Errorf("%s:%d: file=%s: %v", b.File, b.Line, b.Path, err)
			} else if string(data) != b.Text {
				t.Errorf("%s:%d: the block is not what %s holds: copy the file into the block (or the block into the file)", b.File, b.Line, b.Path)
			}
		}
		// The documents' commands run at once, each document in its own
		// folder but with /tmp shared: a /tmp path in two documents would
		// have one's file read by the other.
		for _, c := range docexamples.Commands(blocks, "") {
			for _, p := range tmpPath.FindAllString(c.Text, -1) {
				if first, ok := tmpUsers[p]; ok && first != name {
					t.Errorf("%s: %s is used by %s too: their examples run at once; give each document its own path", c.Where(), p, first)
				} else if !ok {
					tmpUsers[p] = name
				}
			}
		}
		if testing.Short() {
			continue
		}
		if root == "" {
			root = exampleRoot(t)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runDocExamples(t, root, docexamples.Commands(blocks, t.TempDir()))
		})
	}
}

// tmpPath is a path under /tmp in a document's command.
var tmpPath = regexp.MustCompile(`/tmp/[A-Za-z0-9._/-]+`)

// made are the packages make build puts into bin/.
var made = []string{
	"./cmd/mcp-tester",
	"./examples/conformance", "./examples/deployer", "./examples/github-connect", "./examples/minimal", "./examples/oldway",
	"./examples/protected",
	"./internal/testsupport/fixtures/askserver", "./internal/testsupport/fixtures/catalogserver", "./internal/testsupport/fixtures/deployvariant", "./internal/testsupport/fixtures/fakebrowser",
	"./internal/testsupport/fixtures/handbook", "./internal/testsupport/fixtures/hostile", "./internal/testsupport/fixtures/manytools",
	"./internal/testsupport/fixtures/rulebreaker", "./internal/testsupport/fixtures/tasks2025",
}

// exampleRoot returns a folder with what make build builds in bin/ and
// links to every other entry of the repository's root.
func exampleRoot(t *testing.T) string {
	t.Helper()
	repo := moduleRoot(t)
	root := t.TempDir()
	if err := os.Symlink(testbin.Need(t, made...), filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); n != "bin" && !strings.HasPrefix(n, ".") {
			if err := os.Symlink(filepath.Join(repo, n), filepath.Join(root, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// runDocExamples runs cmds in a copy of root, which it returns, as a reader
// runs them: bin/
// first on PATH, DEPLOY_STATE_KEY not set (the documents export it where
// they need it), TOKEN set, and a fake browser
// (internal/testsupport/fixtures/fakebrowser) that signs in as alice where a login
// opens one.
func runDocExamples(t *testing.T, root string, cmds []docexamples.Command) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, ".home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEPLOY_STATE_KEY=") {
			env = append(env, kv)
		}
	}
	// The Go command's caches are the machine's, as a reader's are their
	// own: with the fresh home alone, a document's go test would build
	// (and download) everything again.
	caches, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	if c := strings.Fields(string(caches)); len(c) == 2 {
		env = append(env, "GOCACHE="+c[0], "GOMODCACHE="+c[1])
	}
	env = append(env, "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "TMPDIR="+t.TempDir(),
		"TOKEN=t0ken", "ACCESSIBLE=",
		"MCP_TESTER_BROWSER="+filepath.Join(dir, "bin", "fakebrowser"), "FAKEBROWSER_USER=alice",
		"PROTECTED_PASSWORD=letmein", "FAKEBROWSER_PASSWORD=letmein")
	fails := docexamples.Run(context.Background(), docexamples.Options{Dir: dir, Env: env, Done: []string{"make build"}}, cmds)
	for _, f := range fails {
		t.Error(f)
	}
	t.Logf("%d commands run, %d failed", len(cmds), len(fails))
	return dir
}
