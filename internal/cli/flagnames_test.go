package cli

import (
	"testing"

	"github.com/askback/askback/internal/catalog/catalogdiff"
	"github.com/askback/askback/internal/checks/grade"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/fromrecording"
)

// The lower layers name their options in the Go API's terms; the commands
// name them as the flags that set them, so that what a person reads is
// what they type.
func TestLowerLayersNamedAsFlags(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{catalogDiffFlagName(catalogdiff.OptionThreshold), "--fail-on"},
		{inspectFlagName(inspect.OptionProbe), "--probe"},
		{gradeFlagName(grade.OptionCheckIcons), "--check-icons"},
		{scriptFlagName(fromrecording.OptionLists), "--lists"},
		{targetFlagName(target.OptionURL), "-u"},
		{loginFlagName(login.SettingHeaders), `-H "Name: value"`},
		{testFlagName(script.OptionServer), "-c, -u, -p"},
	} {
		if c.got != c.want {
			t.Errorf("named %q, want %q", c.got, c.want)
		}
	}
	// An option a command has no flag for keeps the layer's own name.
	for _, got := range []string{catalogDiffFlagName(0), inspectFlagName(0), gradeFlagName(0), scriptFlagName(0), targetFlagName(0)} {
		if got != "" {
			t.Errorf("an unknown option named %q, want none", got)
		}
	}
}

// A missing profile is the profile package's typed error; the command
// says how to add one, as a command line.
func TestMissingProfileSaysHowToAddOne(t *testing.T) {
	pl := profile.DefaultPlaces(t.TempDir(), "")
	_, _, err := lookupProfile(pl, "nobody")
	want := `no profile "nobody" in ` + pl.Dir + `; add one with: mcp-tester profile add nobody -c CMD (or -u URL)`
	if err == nil || err.Error() != want || exitCode(err) != ExitUsage {
		t.Errorf("err = %v (exit %d), want a usage error %q", err, exitCode(err), want)
	}
}
