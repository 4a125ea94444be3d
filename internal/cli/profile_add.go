package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/text/credential"
	"github.com/spf13/cobra"
)

// ProfileAddOptions are the options of `mcp-tester profile add`.
type ProfileAddOptions struct {
	IO      *iostreams.IOStreams
	Name    string
	Profile profile.Profile
	Headers []string
	Timeout time.Duration
	// ConnectTimeout is --connect-timeout (0: no limit).
	ConnectTimeout time.Duration
	Local          bool
	Global         bool
	Force          bool
	// Auth is the profile's login settings, from the login flags.
	Auth profile.Auth
}

func newProfileAddCmd(ios *iostreams.IOStreams, runF func(context.Context, *ProfileAddOptions) error) *cobra.Command {
	opts := &ProfileAddOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "add NAME (-c CMD | -u URL) [flags]",
		Short: "Add or replace a profile",
		Example: `  mcp-tester profile add deployer -c bin/deployer
  mcp-tester profile add staging -u http://127.0.0.1:8080/mcp -H 'Authorization: Bearer ${STAGING_TOKEN}'
  mcp-tester tools list -p deployer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if cmd.Flags().Changed("timeout") {
				opts.Profile.Timeout = opts.Timeout.String()
			}
			if cmd.Flags().Changed("connect-timeout") {
				opts.Profile.ConnectTimeout = opts.ConnectTimeout.String()
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileAdd(opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Profile.Command, "command", "c", "", "the shell command line that starts a stdio server")
	f.StringVarP(&opts.Profile.URL, "url", "u", "", "the URL of an HTTP server")
	stringsVarP(f, &opts.Headers, "header", "H", `"Name: value" to send with every HTTP request; write secrets as ${ENV_VAR} (repeatable)`)
	f.StringVar(&opts.Profile.Transport, "transport", "", "HTTP transport: auto, streamable or sse")
	f.StringVar(&opts.Profile.Protocol, "protocol", "", "protocol version to speak")
	f.DurationVar(&opts.Timeout, "timeout", 0, "time limit for each request, once connected")
	f.DurationVar(&opts.ConnectTimeout, "connect-timeout", 0, "time limit for starting or reaching the server and the initialize handshake (0: none)")
	f.StringVar(&opts.Auth.Identity, "identity", "", "the cached login the profile uses (see mcp-tester auth)")
	f.StringVar(&opts.Auth.ClientID, "client-id", "", "a pre-registered OAuth client id")
	f.StringVar(&opts.Auth.ClientSecret, "client-secret", "", "its secret, written as ${ENV_VAR}")
	f.StringVar(&opts.Auth.ClientMetadataURL, "client-metadata-url", "", "an https URL of a client ID metadata document")
	f.BoolVar(&opts.Auth.ClientCredentials, "client-credentials", false, "log in as a machine (OAuth client credentials)")
	f.StringVar(&opts.Auth.ClientKey, "client-key", "", "a PEM private key for client credentials (private_key_jwt)")
	f.StringVar(&opts.Auth.AssertionFile, "assertion-file", "", "a file with a workload's JWT for the JWT-bearer grant")
	stringsVar(f, &opts.Auth.Scopes, "scope", "an OAuth scope to ask for besides the server's (repeatable)")
	f.StringVar(&opts.Auth.RedirectURL, "redirect-url", "", "the loopback address the browser comes back to")
	f.BoolVar(&opts.Auth.NoBrowser, "no-browser", false, "print the login address instead of opening a browser")
	f.BoolVar(&opts.Local, "local", false, "write to ./mcp-tester.yml")
	f.BoolVar(&opts.Global, "global", false, "write to the user's configuration directory")
	f.BoolVar(&opts.Force, "force", false, "replace a profile of the same name")
	return cmd
}

func runProfileAdd(opts *ProfileAddOptions) error {
	if err := profile.ValidName(opts.Name); err != nil {
		return usageErr("%v", err)
	}
	if opts.Local && opts.Global {
		return usageErr("give --local or --global, not both")
	}
	p, err := opts.profile()
	if err != nil {
		return err
	}
	path, err := opts.file()
	if err != nil {
		return err
	}
	f, err := loadProfiles(path)
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

// profile is the profile the flags describe, checked; a secret written
// as it is, not as ${ENV_VAR}, is warned of.
func (opts *ProfileAddOptions) profile() (profile.Profile, error) {
	p := opts.Profile
	if len(opts.Headers) > 0 {
		h, err := opts.headers()
		if err != nil {
			return p, err
		}
		p.Headers = h
	}
	switch p.Transport {
	case "", target.TransportAuto, target.TransportStreamable, target.TransportSSE:
	default:
		return p, usageErr("--transport %q: use auto, streamable or sse", p.Transport)
	}
	if a := opts.Auth; !reflect.DeepEqual(a, profile.Auth{}) {
		if a.ClientSecret != "" && !strings.Contains(a.ClientSecret, "${") {
			fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: the client secret is stored as written; write it as ${ENV_VAR} to keep it out of the file\n")
		}
		p.Auth = &a
	}
	if err := p.Validate(); err != nil {
		return p, usageErr("profile %s: %v", opts.Name, err)
	}
	return p, nil
}

// headers are the --header flags as the profile keeps them.
func (opts *ProfileAddOptions) headers() (map[string]string, error) {
	h, err := target.ParseHeaders(opts.Headers)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	out := map[string]string{}
	for name := range h {
		out[name] = h.Get(name)
		if credential.Name(name) && !strings.Contains(out[name], "${") {
			fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: warning: header %s is stored as written; write it as ${ENV_VAR} to keep the secret out of the file\n", name)
		}
	}
	return out, nil
}

// file is the profiles file to write: --local's, --global's, or by
// default the working directory's when it has one (or there is no user
// configuration directory), else the user's.
func (opts *ProfileAddOptions) file() (string, error) {
	pl, err := places()
	if err != nil {
		return "", err
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
		return "", usageErr("there is no user configuration directory here; use --local")
	}
	return path, nil
}
