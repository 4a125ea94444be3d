package cli

import (
	"context"
	"io"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// CompletionOptions are the options of `mcp-tester completion`.
type CompletionOptions struct {
	IO    *iostreams.IOStreams
	Shell string // bash, zsh, fish or powershell
	// root is the command tree to complete.
	root *cobra.Command
}

func newCompletionCmd(ios *iostreams.IOStreams, runF func(context.Context, *CompletionOptions) error) *cobra.Command {
	opts := &CompletionOptions{IO: ios}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. It completes commands, flags,
profile names (-p) and logging levels.

  bash:  source <(mcp-tester completion bash)
         or save it as /etc/bash_completion.d/mcp-tester; it works in a
         bare bash, and better with the bash-completion package (quoted
         words)
  zsh:   mcp-tester completion zsh > ~/.zfunc/_mcp-tester (with ~/.zfunc in fpath)
  fish:  mcp-tester completion fish > ~/.config/fish/completions/mcp-tester.fish`,
		Example: `  source <(mcp-tester completion bash)
  mkdir -p ~/.zfunc && mcp-tester completion zsh > ~/.zfunc/_mcp-tester`,
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Shell, opts.root = args[0], cmd.Root()
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCompletion(opts)
		},
	}
}

// bashWithoutPackage follows the bash script: the script splits the
// command line with _get_comp_words_by_ref, which the bash-completion
// package provides. Without the package the line up to the cursor is split
// at blanks instead (quotes are not undone), so that completion works
// in a bare bash too.
const bashWithoutPackage = `
# Without the bash-completion package (it provides _get_comp_words_by_ref),
# split the line up to the cursor at blanks.
__mcp-tester_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT}
    read -r -a words <<<"$line"
    if [[ -z $line || $line == *[[:blank:]] ]]; then
        words+=("")
    fi
    cword=$((${#words[@]} - 1))
    cur=${words[cword]}
    prev=
    if ((cword > 0)); then
        prev=${words[cword - 1]}
    fi
}
`

func runCompletion(opts *CompletionOptions) error {
	out := opts.IO.Out
	switch opts.Shell {
	case "bash":
		if err := opts.root.GenBashCompletionV2(out, true); err != nil {
			return err
		}
		_, err := io.WriteString(out, bashWithoutPackage)
		return err
	case "zsh":
		return opts.root.GenZshCompletion(out)
	case "fish":
		return opts.root.GenFishCompletion(out, true)
	case "powershell":
		return opts.root.GenPowerShellCompletionWithDesc(out)
	}
	return usageErr("completion %q: use bash, zsh, fish or powershell", opts.Shell)
}
