package cli

import (
	"context"
	"fmt"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/login"
	"github.com/spf13/cobra"
)

// AuthLogoutOptions are the options of `mcp-tester auth logout`.
type AuthLogoutOptions struct {
	IO *iostreams.IOStreams
	// Server is a URL or a profile name.
	Server string
	// Identity is the login to forget; empty is the default identity.
	Identity string
	// All forgets every identity's login to the server.
	All bool
}

func newAuthLogoutCmd(ios *iostreams.IOStreams, runF func(context.Context, *AuthLogoutOptions) error) *cobra.Command {
	opts := &AuthLogoutOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "logout SERVER [flags]",
		Short: "Forget a cached login",
		Long: `Forget the cached login of SERVER (a URL or a profile) as --identity, or as
every identity with --all. The authorization server is not told.`,
		Example: `  bin/protected -addr 127.0.0.1:8090 &
  mcp-tester auth login http://127.0.0.1:8090/mcp
  mcp-tester auth logout http://127.0.0.1:8090/mcp
  mcp-tester auth logout http://127.0.0.1:8090/mcp --all`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAuthLogout(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Identity, "identity", "", `the identity to forget (default "default")`)
	cmd.Flags().BoolVar(&opts.All, "all", false, "forget every identity's login to the server")
	return cmd
}

func runAuthLogout(opts *AuthLogoutOptions) error {
	if opts.All && opts.Identity != "" {
		return usageErr("give --identity or --all, not both")
	}
	var conn ConnOptions
	if err := resolveServer(opts.Server, &conn); err != nil {
		return err
	}
	server, _ := login.Key(conn.URL)
	cache, err := login.DefaultCache()
	if err != nil {
		return usageErr("%v", err)
	}
	var ids []string
	if opts.All {
		entries, problems, err := cache.List()
		if err != nil {
			return err
		}
		for _, p := range problems {
			fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: %v\n", p)
		}
		for _, e := range entries {
			if e.Server == server {
				ids = append(ids, e.Identity)
			}
		}
	} else {
		id, err := identityOrDefault(opts.Identity)
		if err != nil {
			return err
		}
		ids = []string{id}
	}
	removed := 0
	for _, id := range ids {
		ok, err := cache.Delete(server, id)
		if err != nil {
			return err
		}
		if ok {
			removed++
			fmt.Fprintf(opts.IO.Out, "Logged out of %s as %s\n", server, id)
		}
	}
	if removed == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No cached login of %s to forget\n", server)
	}
	return nil
}
