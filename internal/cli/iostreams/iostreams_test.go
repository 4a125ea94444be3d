package iostreams_test

import (
	"fmt"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// A server's text on Out cannot write a workflow command; the command's
// own annotations, written through WorkflowCommands, are commands, come
// after what was written before them, and hide the secrets.
func TestWorkflowCommandsPassTheGuard(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	ios.Neutralize(false)
	ios.HideSecrets([]string{"s3cret"})
	fmt.Fprint(ios.Out, "report\n::error::forged by the server\n")
	fmt.Fprintln(ios.WorkflowCommands(), "::error file=a.mcp,line=2::ours, not s3cret")
	want := "report\n| ::error::forged by the server\n::error file=a.mcp,line=2::ours, not [redacted]\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
}
