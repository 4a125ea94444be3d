package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/profile"
	"github.com/spf13/cobra"
)

func newCompletionCmd(ios *iostreams.IOStreams) *cobra.Command {
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
  mcp-tester completion zsh > ~/.zfunc/_mcp-tester`,
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(ios.Out, true)
			case "zsh":
				return root.GenZshCompletion(ios.Out)
			case "fish":
				return root.GenFishCompletion(ios.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(ios.Out)
			}
			return usageErr("completion %q: use bash, zsh, fish or powershell", args[0])
		},
	}
}

// completeProfiles completes -p/--profile with the names of the profiles
// found in the profiles files.
func completeProfiles(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	pl, err := places()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	seen := map[string]bool{}
	for _, path := range pl.List() {
		f, err := profile.Load(path)
		if err != nil {
			continue
		}
		for _, n := range f.Names() {
			if strings.HasPrefix(n, prefix) && !seen[n] {
				seen[n] = true
				p := f.Profiles[n]
				desc := p.URL
				if p.Command != "" {
					desc = p.Command
				}
				out = append(out, fmt.Sprintf("%s\t%s", n, desc))
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completionTimeout bounds the connection a completion makes.
const completionTimeout = 3 * time.Second

// completeFromServer returns a completion function for the first argument
// of a command: it connects with the command's connection flags (-c, -u,
// -p, …) and offers the names the server lists (kind: tools, prompts,
// resources). Without a server, or on any error, it offers nothing.
func completeFromServer(ios *iostreams.IOStreams, o *ConnOptions, kind string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		conn := *o
		conn.TraceFile, conn.Verbose = "", false
		if conn.Timeout <= 0 || conn.Timeout > completionTimeout {
			conn.Timeout = completionTimeout
		}
		quiet := &iostreams.IOStreams{In: ios.In, Out: io.Discard, ErrOut: io.Discard}
		s, err := conn.open(ctx, quiet, nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer s.Close()
		var out []string
		add := func(name, desc string) {
			if strings.HasPrefix(name, prefix) && len(out) < 1000 {
				if d := cell(desc, 60); d != "-" {
					name += "\t" + d
				}
				out = append(out, name)
			}
		}
		switch kind {
		case "tools":
			for t, err := range s.SDK().Tools(ctx, nil) {
				if err != nil {
					break
				}
				add(t.Name, t.Description)
			}
		case "prompts":
			for p, err := range s.SDK().Prompts(ctx, nil) {
				if err != nil {
					break
				}
				add(p.Name, p.Description)
			}
		case "resources":
			for r, err := range s.SDK().Resources(ctx, nil) {
				if err != nil {
					break
				}
				add(r.URI, r.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
