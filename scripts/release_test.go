package scripts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/docexamples"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// The release tests build releases of the commit checked out (HEAD: the
// release script builds from the commit, not the working tree), with this
// version.
const (
	testVersion = "v0.9.0-releasetest"
	debVersion  = "0.9.0~releasetest-1" // as dpkg names testVersion
)

// shared holds what the tests of this package share: one release of
// every platform, made once, removed when the tests end. It is the
// package's one build of the whole matrix: the other builds (for
// reproducibility) make one platform each and compare with it.
var shared struct {
	dir  string
	once sync.Once
	out  string // the release folder
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "askback-release-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func gitOut(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// release runs scripts/release.sh into out for the platforms, with the
// environment added, and fails the test if it fails.
func release(t *testing.T, out, platforms string, env ...string) {
	t.Helper()
	if err := runRelease(repoRoot(t), out, platforms, env...); err != nil {
		t.Fatal(err)
	}
}

func runRelease(root, out, platforms string, env ...string) error {
	cmd := exec.Command("bash", "-c", `umask "${RELEASE_UMASK:-022}"; exec bash scripts/release.sh "$1"`, "release", testVersion)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append([]string{"OUT=" + out, "PLATFORMS=" + platforms}, env...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/release.sh %s (PLATFORMS=%s): %v\n%s", testVersion, platforms, err, b)
	}
	return nil
}

// needed stops a test that lacks what it needs: a failure in CI (CI is
// set), where make setup must have installed it, else a skip that says why.
func needed(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// testPlatforms are the platforms of the release the tests share: the
// release script's default but windows/arm64. Each system, each archive
// format, each package architecture and the formula's four platforms are
// among them; windows/arm64 takes none of the script's paths that
// windows/amd64 and the arm64 of linux and darwin do not, and building it
// would compile the standard library, the dependencies and the module for
// one more platform (on a new machine, minutes of processor time that
// make test spends on nothing else), so it is built by make release alone.
const testPlatforms = "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"

// storedPlatforms are the platforms of the shared release whose archives
// and packages store their files rather than compress them (release.sh's
// STORED, which a release never sets): the tests open each and read every
// file, name, mode and time, which compressing does not change, and
// compressing them was most of what the release's archives and packages
// cost (a third of this package's processor time). linux/amd64 is built as
// a release is: its archives and packages are installed
// (TestReleaseDebInstalls, the .rpm into a folder) and checked to be
// compressed (TestReleaseEveryPlatform); each compression path (tar.gz,
// .deb, .rpm at the configured levels; zip's deflate) is the same code for
// every platform, and internal/release tests the .zip's. linux/arm64 is
// the platform built again for reproducibility (TestReleaseIsReproducible).
const storedPlatforms = "linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"

// sharedRelease is the release of testPlatforms the tests share, built
// once.
func sharedRelease(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a release")
	}
	shared.once.Do(func() {
		shared.out = filepath.Join(shared.dir, "all")
		shared.err = runRelease(repoRoot(t), shared.out, testPlatforms, "STORED="+storedPlatforms)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.out
}

func readChecksums(t *testing.T, dir string) (file string, sums map[string]string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "askback_*_checksums.txt"))
	if len(matches) != 1 {
		t.Fatalf("%s: want one checksums file, have %v", dir, matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	sums = map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("checksums line %q", l)
		}
		sums[name] = sum
	}
	return matches[0], sums
}

// Building the same commit again gives the same files: linux/arm64 (its
// binaries, both archives, the .deb and .rpm packages, the checksums), in
// another temporary folder and with another umask than the shared release
// of every platform, whose files it must match byte for byte.
//
// One platform, not two: what the other platforms add to this build is
// other GOOS/GOARCH for the same go build (the toolchain's to make
// reproducible) and, for windows, a .zip archive, which pack makes from the
// same sorted entries, dates and modes as a .tar.gz (internal/release's
// TestArchivesAreReproducible packs the same files made with another umask
// both ways and compares the bytes). Building windows/amd64 again too cost
// 12 s of processor time more.
//
// A stored platform (storedPlatforms), built stored again: every step of a
// release runs again (the links with their stamps, the archives' and the
// packages' entries, names, modes, times and headers, the checksums), and
// only the compressor's level differs from a release. Which bytes deflate
// makes of the same input at one level is compress/flate's (and nfpm's
// gzip's) to keep the same, as the objects are the compiler's: nothing of
// the project's reaches it; internal/release's TestArchivesAreReproducible
// compares deflated archives of files made at other times with another
// umask. Building linux/amd64 again, compressed as a release is, cost 23 s
// of processor time against 9 s stored.
//
// The second build shares the build cache. What it would hide, a compiler
// that turns the same input into different objects, is the Go toolchain's
// to guarantee (it is reproducible since Go 1.21, and tests that itself);
// what is the project's is seen: the folder a release is built in reaches
// the cache keys of a package built without -trimpath, so such a package is
// compiled again and differs, and every step after the compiler (the
// linker's stamps, the archives, the packages, the checksums) runs again.
// A build cache of its own cost 170 s of processor time (the standard
// library and every dependency), a sixth of what make test costs.
func TestReleaseIsReproducible(t *testing.T) {
	first := sharedRelease(t)
	_, sums1 := readChecksums(t, first)
	second := filepath.Join(t.TempDir(), "again")
	const again = "linux/arm64"
	if !strings.Contains(" "+storedPlatforms+" ", " "+again+" ") {
		t.Fatalf("%s is built again stored; the shared release must store it too", again)
	}
	release(t, second, again, "STORED="+again, "TMPDIR="+t.TempDir(), "RELEASE_UMASK=077")
	_, sums2 := readChecksums(t, second)
	var got []string
	for name, sum := range sums2 {
		got = append(got, name)
		if sums1[name] != sum {
			t.Errorf("%s: %s in one build of this commit, %s in another", name, sums1[name], sum)
		}
	}
	want := []string{
		"askback-examples-0.9.0~releasetest-1.aarch64.rpm",
		"askback-examples_0.9.0-releasetest_linux_arm64.tar.gz",
		"askback-examples_" + debVersion + "_arm64.deb",
		"mcp-tester-0.9.0~releasetest-1.aarch64.rpm",
		"mcp-tester_0.9.0-releasetest_linux_arm64.tar.gz",
		"mcp-tester_" + debVersion + "_arm64.deb",
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the release of %s has\n%s\nwant\n%s", again, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every platform of testPlatforms: each archive holds its binary for that
// platform, stamped with the version and commit, built with -trimpath and
// without cgo; the checksums check with sha256sum; the packages are what dpkg and rpm read
// (the .rpm installs with rpm into a folder and runs); the formula names
// each archive with its checksum. (That a platform built again comes out
// the same is TestReleaseIsReproducible.)
func TestReleaseEveryPlatform(t *testing.T) {
	dir := sharedRelease(t)
	commit := gitOut(t, "rev-parse", "HEAD")
	sumsFile, sums := readChecksums(t, dir)

	check := exec.Command("sha256sum", "-c", filepath.Base(sumsFile))
	check.Dir = dir
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(sums)+2 { // the checksums file and the formula
		t.Errorf("%d files in the release, %d checksums", len(entries), len(sums))
	}

	v := strings.TrimPrefix(testVersion, "v")
	examples := []string{"conformance", "deployer", "github-connect", "oldway", "protected"}
	for _, platform := range strings.Fields(testPlatforms) {
		goos, goarch, _ := strings.Cut(platform, "/")
		ext, exe := ".tar.gz", ""
		if goos == "windows" {
			ext, exe = ".zip", ".exe"
		}
		name := "mcp-tester_" + v + "_" + goos + "_" + goarch
		files := archiveFiles(t, filepath.Join(dir, name+ext))
		for _, f := range []string{"mcp-tester" + exe, "README.md", "man/man1/mcp-tester.1", "man/man1/mcp-tester-call.1",
			"completions/mcp-tester.bash", "completions/_mcp-tester", "completions/mcp-tester.fish"} {
			if _, ok := files[name+"/"+f]; !ok {
				t.Errorf("%s%s lacks %s", name, ext, f)
			}
		}
		checkBinary(t, name+"/mcp-tester"+exe, files[name+"/mcp-tester"+exe], goos, goarch, commit)
		stored := strings.Contains(" "+storedPlatforms+" ", " "+platform+" ")
		checkCompression(t, filepath.Join(dir, name+ext), filesSize(files), stored)

		exname := "askback-examples_" + v + "_" + goos + "_" + goarch
		exfiles := archiveFiles(t, filepath.Join(dir, exname+ext))
		if _, ok := exfiles[exname+"/examples/deployer/deploy.mcp"]; !ok {
			t.Errorf("%s%s lacks examples/deployer/deploy.mcp", exname, ext)
		}
		for _, e := range examples {
			checkBinary(t, exname+"/bin/"+e+exe, exfiles[exname+"/bin/"+e+exe], goos, goarch, "")
		}
		checkCompression(t, filepath.Join(dir, exname+ext), filesSize(exfiles), stored)
	}

	for _, arch := range []string{"amd64", "arm64"} {
		for _, pkg := range []string{"mcp-tester", "askback-examples"} {
			deb := filepath.Join(dir, pkg+"_"+debVersion+"_"+arch+".deb")
			out, err := exec.Command("dpkg-deb", "--field", deb, "Package", "Version", "Architecture").Output()
			if err != nil {
				t.Fatalf("dpkg-deb --field %s: %v", deb, err)
			}
			if want := fmt.Sprintf("Package: %s\nVersion: %s\nArchitecture: %s\n", pkg, debVersion, arch); string(out) != want {
				t.Errorf("%s:\n%s\nwant\n%s", filepath.Base(deb), out, want)
			}
			size, err := exec.Command("dpkg-deb", "--showformat", "${Installed-Size}", "--show", deb).Output()
			kib, _ := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64)
			if err != nil || kib == 0 {
				t.Errorf("dpkg-deb --show %s: %q, %v", deb, size, err)
			}
			checkCompression(t, deb, kib*1024, arch != "amd64")
		}
	}

	// The .rpm packages, as rpm reads them, installed into a folder.
	if _, err := exec.LookPath("rpm"); err != nil {
		needed(t, "rpm is missing: scripts/ensure-rpm.sh (make setup) installs it")
	}
	rpmArch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}
	for _, arch := range []string{"amd64", "arm64"} {
		p := filepath.Join(dir, "mcp-tester-0.9.0~releasetest-1."+rpmArch[arch]+".rpm")
		out, err := exec.Command("rpm", "-qp", "--qf", "%{NAME} %{VERSION} %{RELEASE} %{ARCH}\n", p).Output()
		if err != nil {
			t.Fatalf("rpm -qp %s: %v (make setup installs rpm)", p, err)
		}
		if want := "mcp-tester 0.9.0~releasetest 1 " + rpmArch[arch] + "\n"; string(out) != want {
			t.Errorf("rpm -qp: %q, want %q", out, want)
		}
		size, err := exec.Command("rpm", "-qp", "--qf", "%{SIZE}", p).Output()
		n, _ := strconv.ParseInt(string(size), 10, 64)
		if err != nil || n == 0 {
			t.Errorf("rpm -qp --qf %%{SIZE} %s: %q, %v", p, size, err)
		}
		checkCompression(t, p, n, arch != "amd64")
		list, err := exec.Command("rpm", "-qpl", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"/usr/bin/mcp-tester", "/usr/share/man/man1/mcp-tester-call.1.gz",
			"/usr/share/bash-completion/completions/mcp-tester", "/usr/share/zsh/site-functions/_mcp-tester",
			"/usr/share/fish/vendor_completions.d/mcp-tester.fish"} {
			if !strings.Contains(string(list), f+"\n") {
				t.Errorf("%s lacks %s:\n%s", filepath.Base(p), f, list)
			}
		}
	}
	rpmRoot := t.TempDir()
	for _, args := range [][]string{
		{"--root", rpmRoot, "--initdb"},
		{"--root", rpmRoot, "-i", "--nodeps", "--noscripts",
			filepath.Join(dir, "mcp-tester-0.9.0~releasetest-1.x86_64.rpm"),
			filepath.Join(dir, "askback-examples-0.9.0~releasetest-1.x86_64.rpm")},
		{"--root", rpmRoot, "-V", "mcp-tester", "askback-examples"},
	} {
		if out, err := exec.Command("rpm", args...).CombinedOutput(); err != nil {
			t.Fatalf("rpm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(filepath.Join(rpmRoot, "usr/bin/mcp-tester"), "--version").Output()
	if want := "mcp-tester " + testVersion + " (commit " + commit[:12] + ")\n"; err != nil || string(out) != want {
		t.Errorf("the mcp-tester the .rpm installed: %q, %v; want %q", out, err, want)
	}
	if _, err := os.Stat(filepath.Join(rpmRoot, "usr/libexec/askback/deployer")); err != nil {
		t.Errorf("askback-examples .rpm: %v", err)
	}

	// The formula: each platform's archive, at the release's address, with its checksum.
	formula, err := os.ReadFile(filepath.Join(dir, "mcp-tester.rb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"darwin_arm64", "darwin_amd64", "linux_arm64", "linux_amd64"} {
		name := "mcp-tester_" + v + "_" + p + ".tar.gz"
		want := fmt.Sprintf("url \"https://github.com/askback/askback/releases/download/%s/%s\"\n      sha256 \"%s\"", testVersion, name, sums[name])
		if !strings.Contains(string(formula), want) {
			t.Errorf("the formula lacks\n%s\n%s", want, formula)
		}
	}

}

// archiveFiles reads a .tar.gz or .zip: each regular file's content by
// name, and fails on an entry that is not owned by root, not dated at the
// commit, or out of order.
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	epoch, err := strconv.ParseInt(gitOut(t, "log", "-1", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	commitTime := time.Unix(epoch, 0)
	files := map[string][]byte{}
	var names []string
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
			if !f.Modified.Equal(commitTime) {
				t.Errorf("%s: %s dated %s, want the commit's time %s", filepath.Base(path), f.Name, f.Modified, commitTime)
			}
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = b
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, h.Name)
			if !h.ModTime.Equal(commitTime) {
				t.Errorf("%s: %s dated %s, want the commit's time %s", filepath.Base(path), h.Name, h.ModTime, commitTime)
			}
			if h.Uid != 0 || h.Gid != 0 {
				t.Errorf("%s: %s owned by %d:%d", filepath.Base(path), h.Name, h.Uid, h.Gid)
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = b
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("%s: entries out of order: %v", filepath.Base(path), names)
	}
	return files
}

// filesSize is the size of the files an archive holds.
func filesSize(files map[string][]byte) int64 {
	var n int64
	for _, b := range files {
		n += int64(len(b))
	}
	return n
}

// checkCompression checks that path, which holds content bytes of files,
// is compressed as a release's archives and packages are (gzip's default
// level makes the binaries about half their size), or stored, as the shared
// release makes those of storedPlatforms.
func checkCompression(t *testing.T, path string, content int64, stored bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	want := map[bool]string{false: "compressed, as a release is", true: "stored (STORED)"}[stored]
	if compressed := fi.Size() < content*8/10; compressed == stored {
		t.Errorf("%s: %d bytes holding %d bytes of files; want it %s", filepath.Base(path), fi.Size(), content, want)
	}
}

// checkBinary checks that b is an executable for goos/goarch built as a
// release is: -trimpath, without cgo, and (when commit is given) with the
// version and commit stamped.
func checkBinary(t *testing.T, name string, b []byte, goos, goarch, commit string) {
	t.Helper()
	if b == nil {
		t.Errorf("%s: missing", name)
		return
	}
	var machine string
	switch goos {
	case "linux":
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: not ELF: %v", name, err)
			return
		}
		machine = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	case "darwin":
		f, err := macho.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: not Mach-O: %v", name, err)
			return
		}
		machine = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: not PE: %v", name, err)
			return
		}
		machine = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if machine != goarch {
		t.Errorf("%s: built for %q, want %s", name, machine, goarch)
	}
	bi, err := buildinfo.Read(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["-trimpath"] != "true" || settings["CGO_ENABLED"] != "0" || settings["GOOS"] != goos {
		t.Errorf("%s: built with %v", name, settings)
	}
	if _, ok := settings["vcs.revision"]; ok {
		t.Errorf("%s: VCS stamped (a release stamps version and commit with -ldflags): %v", name, settings)
	}
	// -trimpath leaves -ldflags out of the build information: the stamps
	// are looked for in the binary itself.
	if commit != "" && (!bytes.Contains(b, []byte(testVersion)) || !bytes.Contains(b, []byte(commit))) {
		t.Errorf("%s: the version %s and the commit %s are not stamped in it", name, testVersion, commit)
	}
}

// firstExample returns the commands of the README's first example (the
// section "## First example"), read as the documents' test reads them
// (internal/testsupport/docexamples).
func firstExample(t *testing.T) []docexamples.Command {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var from, to int
	for i, l := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(l, "## First example"):
			from = i + 1
		case from > 0 && to == 0 && strings.HasPrefix(l, "## "):
			to = i + 1
		}
	}
	if from == 0 {
		t.Fatal("the README has no section \"## First example\"")
	}
	blocks, errs := docexamples.Parse("README.md", string(readme))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var section []docexamples.Block
	for _, b := range blocks {
		if b.Line > from && (to == 0 || b.Line < to) {
			section = append(section, b)
		}
	}
	cmds := docexamples.Commands(section, t.TempDir())
	if len(cmds) < 3 {
		t.Fatalf("the README's first example has %d commands", len(cmds))
	}
	return cmds
}

// runFirstExample runs the README's first example with only path for PATH
// (no clone, no bin/ of a build), in a folder whose examples/ is the one
// given, as a reader runs it from the folder that holds examples/. Each
// command must exit and print as the README shows, and the report it
// writes to open in a browser must be there and self-contained.
func runFirstExample(t *testing.T, examples, path string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "DEPLOY_STATE_KEY=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+path, "HOME="+t.TempDir())
	cmds := firstExample(t)
	page := htmlReportOf(t, cmds)
	start := time.Now().Add(-time.Second) // file times may be coarser than the clock
	for _, f := range docexamples.Run(context.Background(), docexamples.Options{Dir: dir, Env: env}, cmds) {
		t.Errorf("the README's first example, with PATH=%s: %v", path, f)
	}
	checkHTMLReport(t, page, start)
}

// htmlReportOf returns the file the README's first example writes its
// report to (--html FILE): a newcomer opens it in a browser.
func htmlReportOf(t *testing.T, cmds []docexamples.Command) string {
	t.Helper()
	html := regexp.MustCompile(`--html[ =](/\S+)`)
	for _, c := range cmds {
		if m := html.FindStringSubmatch(c.Text); m != nil {
			return m[1]
		}
	}
	t.Fatal("the README's first example writes no report to open in a browser (--html /tmp/FILE)")
	return ""
}

// checkHTMLReport checks that the page the first example wrote is there,
// written by this run, reports the script's steps, and is self-contained:
// a Content Security Policy that forbids loading anything, and no script,
// link, image or other source to fetch. (What a person sees on it is
// checked in a browser by cmd/mcp-tester's htmlreport_test.go.)
func checkHTMLReport(t *testing.T, path string, since time.Time) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("the first example's report: %v", err)
		return
	}
	if fi.ModTime().Before(since) {
		t.Errorf("the first example's report %s was not written by this run (modified %s)", path, fi.ModTime())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"<title>mcp-tester test: 7 passed, 0 failed</title>",
		`http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the first example's report %s lacks %s", path, want)
		}
	}
	if m := regexp.MustCompile(`(?i)<script|<link|<img|<iframe|<object|\bsrc=|\bhref="?[a-z]+:|url\(`).FindString(page); m != "" {
		t.Errorf("the first example's report %s is not self-contained: it has %q", path, m)
	}
}

// The .deb packages install on this machine with dpkg -i, into the system
// as a user installs them: the installed mcp-tester names its version and
// commit, its man pages and bash completion are where man and bash look,
// it runs the example script against the installed deployer, and the
// README's first example runs with the installed binaries alone (the
// servers' folder on the path, from the folder of their scripts). dpkg -r
// removes them after, and runs the triggers the install left pending.
// Tests on one machine take turns (a lock), and a mcp-tester installed by
// someone else is never replaced.
func TestReleaseDebInstalls(t *testing.T) {
	dir := sharedRelease(t)
	if os.Geteuid() != 0 {
		needed(t, "dpkg -i installs into the system: run the tests as root, as CI does")
	}
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "askback-deb-install-test.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// Held until the removal below has ended (cleanups run last first): a
	// deferred close let another run in while dpkg -r was still removing,
	// which saw the package half gone ("unknown ok not-installed").
	t.Cleanup(func() { lock.Close() })
	if err := lockExclusive(lock); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"mcp-tester", "askback-examples"} {
		out, err := exec.Command("dpkg-query", "-W", "-f", "${Status} ${Version}", pkg).Output()
		status := strings.Fields(string(out))
		if err == nil && len(status) >= 3 && status[2] != "not-installed" && status[2] != "config-files" && !strings.Contains(string(out), "releasetest") {
			t.Fatalf("%s is installed on this machine (%s); this test installs and removes its own: remove it first", pkg, out)
		}
	}
	commit := gitOut(t, "rev-parse", "HEAD")
	debs := []string{
		filepath.Join(dir, "mcp-tester_"+debVersion+"_amd64.deb"),
		filepath.Join(dir, "askback-examples_"+debVersion+"_amd64.deb"),
	}
	t.Cleanup(func() {
		if out, err := dpkg("-r", "askback-examples", "mcp-tester"); err != nil {
			t.Errorf("dpkg -r: %v\n%s", err, out)
		}
		if _, err := os.Stat("/usr/bin/mcp-tester"); err == nil {
			t.Error("dpkg -r left /usr/bin/mcp-tester")
		}
		if out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", "man-db").Output(); err == nil && strings.Contains(string(out), "trigger") {
			t.Errorf("dpkg -r left man-db's trigger pending: %s", out)
		}
	})
	// --no-triggers: man-db's trigger (mandb, which indexes the man pages
	// for apropos and whatis) is left pending at the install and runs once,
	// at the dpkg -r above, not once at each: man finds the installed pages
	// without the index (man -w, below), and nothing here reads the index.
	// A mandb run is some 3 s of processor time on a machine with many man
	// pages; the machine is left with no trigger pending.
	if out, err := dpkg(append([]string{"--no-triggers", "-i"}, debs...)...); err != nil {
		t.Fatalf("dpkg -i: %v\n%s", err, out)
	}

	out, err := exec.Command("/usr/bin/mcp-tester", "--version").Output()
	if want := "mcp-tester " + testVersion + " (commit " + commit[:12] + ")\n"; err != nil || string(out) != want {
		t.Errorf("installed mcp-tester --version: %q, %v; want %q", out, err, want)
	}
	page, err := exec.Command("man", "-w", "mcp-tester-call").Output()
	if err != nil || strings.TrimSpace(string(page)) != "/usr/share/man/man1/mcp-tester-call.1.gz" {
		t.Errorf("man -w mcp-tester-call: %q, %v", page, err)
	}
	text, err := exec.Command("man", "-P", "cat", "mcp-tester-call").CombinedOutput()
	if err != nil || !strings.Contains(string(text), "--elicit") || !strings.Contains(string(text), testVersion) {
		t.Errorf("man mcp-tester-call: %v\n%s", err, text)
	}
	comp, err := exec.Command("bash", "-c", "source /usr/share/bash-completion/completions/mcp-tester && complete -p mcp-tester").CombinedOutput()
	if err != nil || !strings.Contains(string(comp), "mcp-tester") {
		t.Errorf("bash completion: %v\n%s", err, comp)
	}

	// The example script, from where the package put it, against the installed deployer.
	run := exec.Command("/usr/bin/mcp-tester", "test", "-s", "/usr/share/askback/examples/deployer/deploy.mcp", "-c", "/usr/libexec/askback/deployer")
	run.Dir = t.TempDir()
	run.Env = append(os.Environ(), "HOME="+t.TempDir())
	res, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "deploy.mcp: 7 passed, 0 failed") {
		t.Errorf("the installed mcp-tester running the installed script: %v\n%s", err, res)
	}

	runFirstExample(t, "/usr/share/askback/examples", "/usr/libexec/askback:/usr/bin:/bin")
}

func dpkg(args ...string) ([]byte, error) {
	// dpkg fails at once when another dpkg or apt holds its lock: wait for
	// it, ten minutes at most.
	deadline := time.Now().Add(10 * time.Minute)
	for {
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil || !regexp.MustCompile(`(?i)lock`).Match(out) || time.Now().After(deadline) {
			return out, err
		}
		time.Sleep(2 * time.Second)
	}
}

// go install github.com/askback/askback/cmd/mcp-tester@VERSION works from a
// module proxy served from a folder, with the module zipped from the
// commit as the Go command zips it (only committed files, no replace
// directives), its dependencies from the usual module
// proxy; the installed binary names its version, and with the deployer
// installed @latest the README's first example runs.
func TestReleaseGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module from a proxy")
	}
	root := repoRoot(t)
	const path = "github.com/askback/askback"
	proxy := t.TempDir()
	vdir := filepath.Join(proxy, path, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	mv := module.Version{Path: path, Version: testVersion}
	zf, err := os.Create(filepath.Join(vdir, testVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// The committed files, as git archive gives them (what the Go command
	// reads of a repository), zipped by the Go command's rules.
	src := t.TempDir()
	export := exec.Command("bash", "-c", `git archive --format=tar HEAD | tar -x -C "$1"`, "export", src)
	export.Dir = root
	if out, err := export.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	if err := modzip.CreateFromDir(zf, mv, src); err != nil {
		t.Fatalf("zipping the module at HEAD: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod := gitOut(t, "show", "HEAD:go.mod") + "\n"
	if strings.Contains(gomod, "\nreplace") {
		t.Errorf("go.mod has replace directives, which go install refuses:\n%s", gomod)
	}
	when, err := time.Parse(time.RFC3339, gitOut(t, "log", "-1", "--format=%cI", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": testVersion, "Time": when.UTC().Format(time.RFC3339)})
	for name, body := range map[string]string{
		testVersion + ".mod":  gomod,
		testVersion + ".info": string(info),
		"list":                testVersion + "\n",
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	goEnv := func(key string) string {
		out, err := exec.Command("go", "env", key).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	// A module cache of its own (the module is new to it), the dependencies
	// from the one this machine has, else from the usual proxy.
	upstream := "file://" + filepath.Join(goEnv("GOMODCACHE"), "cache", "download")
	if p := goEnv("GOPROXY"); p != "" && p != "off" {
		upstream += "," + p
	}
	gobin := t.TempDir()
	work := t.TempDir()
	modcache := filepath.Join(t.TempDir(), "mod")
	env := append(os.Environ(),
		"GOPROXY=file://"+proxy+","+upstream,
		"GOMODCACHE="+modcache,
		// -trimpath: the dependencies compiled for the release are
		// reused from the build cache (without it, their folder in this
		// new module cache would be part of their cache keys).
		"GOFLAGS=-modcacherw -trimpath",
		"GONOSUMDB="+path, "GOPRIVATE=", "GONOPROXY=",
		"GOWORK=off", "GOBIN="+gobin, "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	for _, target := range []string{path + "/cmd/mcp-tester@" + testVersion, path + "/examples/deployer@latest"} {
		cmd := exec.Command("go", "install", target)
		cmd.Dir = work
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install %s: %v\n%s", target, err, out)
		}
	}
	out, err := exec.Command(filepath.Join(gobin, "mcp-tester"), "--version").Output()
	if want := "mcp-tester " + testVersion + " (built by go install from the module " + path + ")\n"; err != nil || string(out) != want {
		t.Errorf("mcp-tester --version after go install: %q, %v; want %q", out, err, want)
	}
	// The example script is in the module: run the README from there.
	runFirstExample(t, filepath.Join(modcache, path+"@"+testVersion, "examples"), gobin+":/usr/bin:/bin")
}
