package cli

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

func TestNewCompletionCmd(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		ios, _, _, _ := iostreams.Test()
		var got *CompletionOptions
		if err := execute(newCompletionCmd(ios, capture(&got)), shell); err != nil {
			t.Fatal(err)
		}
		if got.Shell != shell || got.root == nil {
			t.Errorf("%s: options %+v", shell, got)
		}
	}
	ios, _, _, _ := iostreams.Test()
	err := runCompletion(&CompletionOptions{IO: ios, Shell: "tcsh"})
	if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), `completion "tcsh": use bash, zsh, fish or powershell`) {
		t.Errorf("tcsh: %v", err)
	}
}
