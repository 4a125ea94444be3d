package cli

import (
	"context"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

func TestNewListCmds(t *testing.T) {
	conn := connDefaults("./server", false)
	for name, newCmd := range map[string]func(*iostreams.IOStreams, func(context.Context, *ListOptions) error) *cobra.Command{
		"tools list":          newToolsListCmd,
		"prompts list":        newPromptsListCmd,
		"resources list":      newResourcesListCmd,
		"resources templates": newResourcesTemplatesCmd,
	} {
		t.Run(name, func(t *testing.T) {
			runFlagCases(t, newCmd, []flagCase[ListOptions]{
				{name: "one page", args: []string{"-c", "./server"}, want: ListOptions{Conn: conn, Format: "text"}},
				{name: "every page as JSON", args: []string{"-c", "./server", "--all", "--json"}, want: ListOptions{Conn: conn, Format: "json", All: true}},
				{name: "from a cursor", args: []string{"-c", "./server", "--cursor", "eyJ9", "--format", "json"}, want: ListOptions{Conn: conn, Format: "json", Cursor: "eyJ9"}},
				{name: "nothing is asked", args: []string{"-c", "./server", "--max-rounds", "3"}, wantErr: "unknown flag: --max-rounds"},
				{name: "no arguments", args: []string{"x"}, wantErr: `unknown command "x"`},
			})
		})
	}
}
