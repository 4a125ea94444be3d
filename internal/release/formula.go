package release

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/template"

	"golang.org/x/mod/semver"
)

// Platform is one target of a release.
type Platform struct{ OS, Arch string }

// ArchiveName is the name of a product's archive for a platform:
// PRODUCT_VERSION_OS_ARCH.tar.gz, .zip for Windows; VERSION without its v.
func ArchiveName(product, version string, p Platform) string {
	ext := ".tar.gz"
	if p.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", product, strings.TrimPrefix(version, "v"), p.OS, p.Arch, ext)
}

// FormulaPlatforms are the platforms the Homebrew formula installs on.
var FormulaPlatforms = []Platform{{"darwin", "arm64"}, {"darwin", "amd64"}, {"linux", "arm64"}, {"linux", "amd64"}}

// Formula is what the Homebrew formula of mcp-tester is made from.
type Formula struct {
	Version   string            // the release version, v0.9.0
	BaseURL   string            // where the archives are downloaded from: BaseURL/NAME
	Checksums map[string]string // archive name → SHA-256, as ReadChecksums reads them
}

type formulaArchive struct{ URL, SHA256 string }

// Write writes the formula: the mcp-tester archive of each platform in
// FormulaPlatforms with its checksum, and what it installs (the binary, the
// shell completions, the man pages). An archive missing from the checksums,
// a version that is not semver, or a base URL that is not a plain https
// (or file) URL is an error.
func (f Formula) Write(w io.Writer) error {
	if err := f.check(); err != nil {
		return err
	}
	archives, err := f.archives()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	err = formulaTemplate.Execute(&buf, map[string]any{
		"Version":  strings.TrimPrefix(f.Version, "v"),
		"Archives": archives,
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// check refuses a version that is not semver and a base URL that is not a
// plain https (or file) URL.
func (f Formula) check() error {
	if !semver.IsValid(f.Version) || semver.Build(f.Version) != "" {
		return fmt.Errorf("formula: version %q is not a release version (vMAJOR.MINOR.PATCH[-PRERELEASE])", f.Version)
	}
	u, err := url.Parse(f.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "file") || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsAny(f.BaseURL, "\"\\#{}$` \t\n") {
		return fmt.Errorf("formula: base URL %q: want an https:// (or file://) URL without query, fragment, quotes or spaces", f.BaseURL)
	}
	return nil
}

// archives is the archive of each platform in FormulaPlatforms, by
// "OS/ARCH", with its checksum.
func (f Formula) archives() (map[string]formulaArchive, error) {
	archives := map[string]formulaArchive{}
	for _, p := range FormulaPlatforms {
		name := ArchiveName("mcp-tester", f.Version, p)
		sum, ok := f.Checksums[name]
		if !ok {
			return nil, fmt.Errorf("formula: %s is not in the checksums", name)
		}
		archives[p.OS+"/"+p.Arch] = formulaArchive{URL: strings.TrimSuffix(f.BaseURL, "/") + "/" + name, SHA256: sum}
	}
	return archives, nil
}

var formulaTemplate = template.Must(template.New("formula").Parse(`# Homebrew formula of mcp-tester {{.Version}}, made by scripts/release.sh from
# the release's checksums.
class McpTester < Formula
  desc "Client that tests MCP servers which ask the human questions"
  homepage "https://github.com/askback/askback"
  version "{{.Version}}"

  on_macos do
    on_arm do
      url "{{(index .Archives "darwin/arm64").URL}}"
      sha256 "{{(index .Archives "darwin/arm64").SHA256}}"
    end
    on_intel do
      url "{{(index .Archives "darwin/amd64").URL}}"
      sha256 "{{(index .Archives "darwin/amd64").SHA256}}"
    end
  end

  on_linux do
    on_arm do
      url "{{(index .Archives "linux/arm64").URL}}"
      sha256 "{{(index .Archives "linux/arm64").SHA256}}"
    end
    on_intel do
      url "{{(index .Archives "linux/amd64").URL}}"
      sha256 "{{(index .Archives "linux/amd64").SHA256}}"
    end
  end

  def install
    bin.install "mcp-tester"
    bash_completion.install "completions/mcp-tester.bash" => "mcp-tester"
    zsh_completion.install "completions/_mcp-tester"
    fish_completion.install "completions/mcp-tester.fish"
    man1.install Dir["man/man1/*.1"]
  end

  test do
    assert_match "mcp-tester v#{version} (commit ", shell_output("#{bin}/mcp-tester --version")
  end
end
`))
