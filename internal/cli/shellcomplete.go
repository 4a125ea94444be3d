package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

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
			if strings.HasPrefix(n, prefix) && !seen[n] && typable(n) {
				seen[n] = true
				p := f.Profiles[n]
				desc := credential.RedactURL(p.URL)
				if p.Command != "" {
					desc = credential.RedactCommand(p.Command)
				}
				out = append(out, fmt.Sprintf("%s\t%s", n, cell(desc, 60)))
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// typable reports whether a name can be offered to the shell as a
// completion: one that holds control characters cannot be typed, and would
// reach the shell and the terminal as it is.
func typable(name string) bool {
	return !termsafe.Has(name) && !strings.ContainsAny(name, "\t\n")
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
		// A completion uses a cached login, and never opens a browser.
		conn.Auth.cachedOnly, conn.Auth.Login, conn.Auth.built = true, false, nil
		if conn.Timeout <= 0 || conn.Timeout > completionTimeout {
			conn.Timeout = completionTimeout
		}
		if conn.ConnectTimeout <= 0 || conn.ConnectTimeout > completionTimeout {
			conn.ConnectTimeout = completionTimeout
		}
		quiet := &iostreams.IOStreams{In: ios.In, Out: io.Discard, ErrOut: io.Discard}
		s, err := conn.openToList(ctx, quiet, nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer s.Close()
		var out []string
		add := func(name, desc string) {
			if strings.HasPrefix(name, prefix) && len(out) < 1000 && typable(name) {
				if d := cell(desc, 60); d != "-" {
					name += "\t" + d
				}
				out = append(out, name)
			}
		}
		lists := map[string]catalog.Lists{"tools": catalog.Tools, "prompts": catalog.Prompts, "resources": catalog.Resources}[kind]
		if lists == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		l, err := catalog.List(ctx, s, catalog.Options{Lists: lists})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		for _, t := range l.Tools {
			add(t.Name, t.Description)
		}
		for _, p := range l.Prompts {
			add(p.Name, p.Description)
		}
		for _, r := range l.Resources {
			add(r.URI, r.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
