package cli

import (
	"context"

	"github.com/askback/askback/internal/iostreams"
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
         or save it as /etc/bash_completion.d/mcp-tester
  zsh:   mcp-tester completion zsh > "${fpath[1]}/_mcp-tester"
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

func runCompletion(opts *CompletionOptions) error {
	out := opts.IO.Out
	switch opts.Shell {
	case "bash":
		return opts.root.GenBashCompletionV2(out, true)
	case "zsh":
		return opts.root.GenZshCompletion(out)
	case "fish":
		return opts.root.GenFishCompletion(out, true)
	case "powershell":
		return opts.root.GenPowerShellCompletionWithDesc(out)
	}
	return usageErr("completion %q: use bash, zsh, fish or powershell", opts.Shell)
}
