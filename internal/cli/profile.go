package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/profile"
	"github.com/askback/askback/internal/text/credential"
	"github.com/spf13/cobra"
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

// loadProfiles reads the profiles file at path. A file that cannot be
// read or is not a profiles file (an unknown key, named with its line) is
// a usage error; one that does not exist still satisfies
// errors.Is(err, fs.ErrNotExist).
func loadProfiles(path string) (*profile.File, error) {
	f, err := profile.Load(path)
	if err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	return f, nil
}

// applyProfile fills the connection flags that were not given from the
// profile named by -p, with ${ENV} expanded.
func (o *ConnOptions) applyProfile() error {
	if err := o.checkOneProfile(); err != nil {
		return err
	}
	if o.Profile == "" {
		return nil
	}
	x, err := o.loadProfile()
	if err != nil {
		return err
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
	if !given("connect-timeout") {
		d, set, err := x.ConnectTimeoutDuration()
		if err != nil {
			return usageErr("profile %q: %v", o.Profile, err)
		}
		o.ConnectTimeout, o.connectNone = d, set && d == 0
	}
	if x.Auth != nil {
		o.Auth.fromProfile(o.Profile, x.Auth)
	}
	return nil
}

// lookupProfile finds the profile name as profile.Places.Lookup does; a
// usage error when it is not there, which says how to add it.
func lookupProfile(pl profile.Places, name string) (*profile.Profile, string, error) {
	p, path, err := pl.Lookup(name)
	if err != nil {
		if _, ok := errors.AsType[*profile.NotFoundError](err); ok {
			return nil, "", usageErr("%v; add one with: mcp-tester profile add %s -c CMD (or -u URL)", err, name)
		}
		return nil, "", usageErr("%v", err)
	}
	return p, path, nil
}

// loadProfile is the profile named by -p, enabled and valid, with ${ENV}
// expanded.
func (o *ConnOptions) loadProfile() (*profile.Profile, error) {
	pl, err := places()
	if err != nil {
		return nil, err
	}
	p, path, err := lookupProfile(pl, o.Profile)
	if err != nil {
		return nil, err
	}
	if p.Disabled {
		return nil, usageErr("profile %q in %s is disabled; enable it with: mcp-tester profile enable %s", o.Profile, path, o.Profile)
	}
	if err := p.Validate(); err != nil {
		return nil, usageErr("profile %q in %s: %v", o.Profile, path, err)
	}
	x, err := p.Expanded(os.LookupEnv)
	if err != nil {
		return nil, usageErr("profile %q in %s: %v", o.Profile, path, err)
	}
	return x, nil
}

// fromProfile fills the login options that were not given from the auth
// settings of the profile name, a, and remembers which it filled.
func (o *LoginOptions) fromProfile(name string, a *profile.Auth) {
	o.profile, o.profiled = name, map[string]bool{}
	str := func(flag string, dst *string, v string) {
		if !o.given(flag) && v != "" {
			*dst = v
			o.profiled[flag] = true
		}
	}
	str("identity", &o.Identity, a.Identity)
	str("client-id", &o.ClientID, a.ClientID)
	str("client-metadata-url", &o.ClientMetadataURL, a.ClientMetadataURL)
	str("client-key", &o.ClientKey, a.ClientKey)
	str("assertion-file", &o.AssertionFile, a.AssertionFile)
	str("id-token-file", &o.IDTokenFile, a.IDTokenFile)
	str("idp-issuer", &o.IdPIssuer, a.IdPIssuer)
	str("idp-client-id", &o.IdPClientID, a.IdPClientID)
	str("redirect-url", &o.RedirectURL, a.RedirectURL)
	if a.ClientSecret != "" && !o.given("client-id") {
		o.ClientSecret = a.ClientSecret
	}
	if !o.given("client-credentials") && a.ClientCredentials {
		o.ClientCredentials = true
		o.profiled["client-credentials"] = true
	}
	if !o.given("no-browser") && a.NoBrowser {
		o.NoBrowser = true
		o.profiled["no-browser"] = true
	}
	if !o.given("scope") && len(a.Scopes) > 0 {
		o.Scopes = a.Scopes
		o.profiled["scope"] = true
	}
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

// newProfileCmd groups the commands that keep profiles.
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
	cmd.Example = `  bin/deployer -http 127.0.0.1:8080 &
  mcp-tester profile add staging -u http://127.0.0.1:8080/mcp -H 'Authorization: Bearer ${STAGING_TOKEN}'
  STAGING_TOKEN=t0ken mcp-tester tools list -p staging
  mcp-tester profile list`
	cmd.AddCommand(newProfileAddCmd(ios, nil), newProfileListCmd(ios, nil), newProfileShowCmd(ios, nil), newProfileRemoveCmd(ios, nil),
		newProfileEnableCmd(ios, false, nil), newProfileEnableCmd(ios, true, nil))
	return cmd
}

type profileEntry struct {
	Name    string           `json:"name"`
	File    string           `json:"file"`
	Shadow  bool             `json:"shadowed,omitempty"`
	Profile *profile.Profile `json:"profile"`
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

// redactProfile hides literal values of credential headers and client
// secrets, and the credentials of the command line and the URL; ${VAR}
// references stay, since they are not secrets.
func redactProfile(p *profile.Profile) *profile.Profile {
	out := *p
	out.Command = credential.RedactCommand(p.Command)
	out.URL = credential.RedactURL(p.URL)
	if p.Auth != nil && p.Auth.ClientSecret != "" && !strings.Contains(p.Auth.ClientSecret, "${") {
		a := *p.Auth
		a.ClientSecret = "[redacted]"
		out.Auth = &a
	}
	if p.Headers != nil {
		out.Headers = map[string]string{}
		for k, v := range p.Headers {
			if credential.Name(k) && !strings.Contains(v, "${") {
				v = "[redacted]"
			}
			out.Headers[k] = v
		}
	}
	return &out
}

// editProfile changes the profiles file in which the profile name is found
// with edit, saves it and returns its path.
func editProfile(name string, edit func(*profile.File)) (string, error) {
	pl, err := places()
	if err != nil {
		return "", err
	}
	_, path, err := lookupProfile(pl, name)
	if err != nil {
		return "", err
	}
	f, err := loadProfiles(path)
	if err != nil {
		return "", err
	}
	edit(f)
	if err := f.Save(path); err != nil {
		return "", err
	}
	return path, nil
}
