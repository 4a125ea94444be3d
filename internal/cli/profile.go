package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/internal/profile"
	"github.com/askback/askback/internal/target"
	"github.com/askback/askback/internal/trace"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// places returns where profiles files are looked for: the working
// directory, then the user's configuration directory.
func places() (profile.Places, error) {
	wd, err := os.Getwd()
	if err != nil {
		return profile.Places{}, fmt.Errorf("profiles: %w", err)
	}
	cfg, _ := os.UserConfigDir() // no user directory: the working directory only
	return profile.DefaultPlaces(wd, cfg), nil
}

// applyProfile fills the connection flags that were not given from the
// profile named by -p, with ${ENV} expanded.
func (o *ConnOptions) applyProfile() error {
	if o.Profile == "" {
		return nil
	}
	pl, err := places()
	if err != nil {
		return err
	}
	p, path, err := pl.Lookup(o.Profile)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := p.Validate(); err != nil {
		return usageErr("profile %q in %s: %v", o.Profile, path, err)
	}
	x, err := p.Expanded(os.LookupEnv)
	if err != nil {
		return usageErr("profile %q in %s: %v", o.Profile, path, err)
	}
	given := func(name string) bool { return o.flags != nil && o.flags.Changed(name) }
	if !given("command") && !given("url") {
		o.Command, o.URL = x.Command, x.URL
	}
	if len(x.Headers) > 0 {
		o.Headers = mergeHeaders(x.HeaderLines(), o.Headers)
	}
	if !given("transport") && x.Transport != "" {
		o.Transport = x.Transport
	}
	if !given("protocol") && x.Protocol != "" {
		o.Protocol = x.Protocol
	}
	if !given("timeout") && x.Timeout != "" {
		d, err := x.TimeoutDuration()
		if err != nil {
			return usageErr("profile %q: %v", o.Profile, err)
		}
		o.Timeout = d
	}
	return nil
}

// mergeHeaders returns base with the headers of over added; a header of
// over replaces one of base with the same name.
func mergeHeaders(base, over []string) []string {
	names := map[string]bool{}
	for _, l := range over {
		n, _, _ := strings.Cut(l, ":")
		names[strings.ToLower(strings.TrimSpace(n))] = true
	}
	var out []string
	for _, l := range base {
		n, _, _ := strings.Cut(l, ":")
		if !names[strings.ToLower(strings.TrimSpace(n))] {
			out = append(out, l)
		}
	}
	return append(out, over...)
}

// ProfileOptions are the options of `mcp-tester profile`.
type ProfileOptions struct {
	IO      *iostreams.IOStreams
	Name    string
	Profile profile.Profile
	Headers []string
	Timeout time.Duration
	Local   bool
	Global  bool
	Force   bool
	Format  string
}

func newProfileCmd(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Keep named servers in mcp-tester.yml",
		Long: `A profile names a server and how to reach it: a command or a URL, headers,
transport, protocol version and time limit. Every command that connects
takes -p/--profile NAME; flags given on the command line win over the
profile's values.

Profiles live in mcp-tester.yml in the working directory, then in the user's
configuration directory (mcp-tester/mcp-tester.yml under it, e.g.
~/.config/mcp-tester/mcp-tester.yml). A profile found in the working
directory wins. Values may refer to environment variables as ${NAME}, so
that tokens stay out of the file; write $$ for a literal $.

  profiles:
    staging:
      url: https://staging.example.com/mcp
      headers:
        Authorization: Bearer ${STAGING_TOKEN}
      protocol: 2026-07-28
      timeout: 20s
    deployer:
      command: ./bin/deployer`,
	}
	cmd.Example = `  mcp-tester profile add staging -u https://staging.example.com/mcp -H 'Authorization: Bearer ${STAGING_TOKEN}'
  STAGING_TOKEN=... mcp-tester tools list -p staging
  mcp-tester profile list`
	cmd.AddCommand(newProfileAddCmd(ios), newProfileListCmd(ios), newProfileShowCmd(ios), newProfileRemoveCmd(ios))
	return cmd
}

func newProfileAddCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ProfileOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "add NAME (-c CMD | -u URL) [flags]",
		Short: "Add or replace a profile",
		Example: `  mcp-tester profile add deployer -c ./bin/deployer
  mcp-tester profile add staging -u https://staging.example.com/mcp -H 'Authorization: Bearer ${STAGING_TOKEN}'
  mcp-tester tools list -p staging`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if cmd.Flags().Changed("timeout") {
				opts.Profile.Timeout = opts.Timeout.String()
			}
			return runProfileAdd(opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Profile.Command, "command", "c", "", "the shell command line that starts a stdio server")
	f.StringVarP(&opts.Profile.URL, "url", "u", "", "the URL of an HTTP server")
	f.StringArrayVarP(&opts.Headers, "header", "H", nil, `"Name: value" to send with every HTTP request; write secrets as ${ENV_VAR} (repeatable)`)
	f.StringVar(&opts.Profile.Transport, "transport", "", "HTTP transport: auto, streamable or sse")
	f.StringVar(&opts.Profile.Protocol, "protocol", "", "protocol version to speak")
	f.DurationVar(&opts.Timeout, "timeout", 0, "time limit for connecting and for each request")
	f.BoolVar(&opts.Local, "local", false, "write to ./mcp-tester.yml")
	f.BoolVar(&opts.Global, "global", false, "write to the user's configuration directory")
	f.BoolVar(&opts.Force, "force", false, "replace a profile of the same name")
	return cmd
}

func runProfileAdd(opts *ProfileOptions) error {
	if err := profile.ValidName(opts.Name); err != nil {
		return usageErr("%v", err)
	}
	if opts.Local && opts.Global {
		return usageErr("give --local or --global, not both")
	}
	p := opts.Profile
	if len(opts.Headers) > 0 {
		h, err := target.ParseHeaders(opts.Headers)
		if err != nil {
			return usageErr("%v", err)
		}
		p.Headers = map[string]string{}
		for name := range h {
			p.Headers[name] = h.Get(name)
			if trace.IsSensitiveHeader(name) && !strings.Contains(p.Headers[name], "${") {
				fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: header %s is stored as written; write it as ${ENV_VAR} to keep the secret out of the file\n", name)
			}
		}
	}
	switch p.Transport {
	case "", target.TransportAuto, target.TransportStreamable, target.TransportSSE:
	default:
		return usageErr("--transport %q: use auto, streamable or sse", p.Transport)
	}
	if err := p.Validate(); err != nil {
		return usageErr("profile %s: %v", opts.Name, err)
	}
	pl, err := places()
	if err != nil {
		return err
	}
	path := pl.User
	switch {
	case opts.Local:
		path = pl.Dir
	case opts.Global:
	default:
		if _, err := os.Stat(pl.Dir); err == nil || pl.User == "" {
			path = pl.Dir
		}
	}
	if path == "" {
		return usageErr("there is no user configuration directory here; use --local")
	}
	f, err := profile.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = &profile.File{Profiles: map[string]*profile.Profile{}}, nil
	}
	if err != nil {
		return err
	}
	if _, ok := f.Profiles[opts.Name]; ok && !opts.Force {
		return usageErr("profile %q already exists in %s; add --force to replace it", opts.Name, path)
	}
	f.Profiles[opts.Name] = &p
	if err := f.Save(path); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Saved profile %s in %s\n", opts.Name, path)
	return nil
}

func newProfileListCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ProfileOptions{IO: ios}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the profiles of every profiles file",
		Example: `  mcp-tester profile list`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runProfileList(opts)
		},
	}
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

type profileEntry struct {
	Name    string           `json:"name"`
	File    string           `json:"file"`
	Shadow  bool             `json:"shadowed,omitempty"`
	Profile *profile.Profile `json:"profile"`
}

func runProfileList(opts *ProfileOptions) error {
	pl, err := places()
	if err != nil {
		return err
	}
	var entries []profileEntry
	seen := map[string]bool{}
	for _, path := range pl.List() {
		f, err := profile.Load(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, n := range f.Names() {
			entries = append(entries, profileEntry{Name: n, File: path, Shadow: seen[n], Profile: redactProfile(f.Profiles[n])})
			seen[n] = true
		}
	}
	if opts.Format == "json" {
		if entries == nil {
			entries = []profileEntry{}
		}
		return printer.JSON(opts.IO.Out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No profiles in %s; add one with `mcp-tester profile add NAME -c CMD`\n", strings.Join(pl.List(), " or "))
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVER\tFILE")
	for _, e := range entries {
		name := e.Name
		if e.Shadow {
			name += " (shadowed)"
		}
		server := e.Profile.URL
		if e.Profile.Command != "" {
			server = "command: " + e.Profile.Command
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, server, friendlyPath(e.File))
	}
	return tw.Flush()
}

// friendlyPath shortens a path under the working directory.
func friendlyPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// redactProfile hides literal values of credential headers; ${VAR}
// references stay, since they are not secrets.
func redactProfile(p *profile.Profile) *profile.Profile {
	out := *p
	if p.Headers != nil {
		out.Headers = map[string]string{}
		for k, v := range p.Headers {
			if trace.IsSensitiveHeader(k) && !strings.Contains(v, "${") {
				v = "[redacted]"
			}
			out.Headers[k] = v
		}
	}
	return &out
}

func newProfileShowCmd(ios *iostreams.IOStreams) *cobra.Command {
	opts := &ProfileOptions{IO: ios}
	cmd := &cobra.Command{
		Use:     "show NAME",
		Short:   "Show a profile as written (literal secrets hidden)",
		Example: `  mcp-tester profile show staging`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			pl, err := places()
			if err != nil {
				return err
			}
			p, path, err := pl.Lookup(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			p = redactProfile(p)
			if opts.Format == "json" {
				return printer.JSON(ios.Out, profileEntry{Name: args[0], File: path, Profile: p})
			}
			fmt.Fprintf(ios.Out, "# %s\n", friendlyPath(path))
			b, err := yaml.Marshal(map[string]*profile.Profile{args[0]: p})
			if err != nil {
				return err
			}
			_, err = ios.Out.Write(b)
			return err
		},
	}
	addFormatFlag(cmd, &opts.Format, nil)
	return cmd
}

func newProfileRemoveCmd(ios *iostreams.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove a profile from the file it is found in",
		Example: `  mcp-tester profile remove staging`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			pl, err := places()
			if err != nil {
				return err
			}
			_, path, err := pl.Lookup(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			f, err := profile.Load(path)
			if err != nil {
				return err
			}
			delete(f.Profiles, args[0])
			if err := f.Save(path); err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "Removed profile %s from %s\n", args[0], path)
			return nil
		},
	}
}
