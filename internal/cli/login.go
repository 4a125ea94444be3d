package cli

import (
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/login"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ClientSecretEnv names the environment variable that holds the secret of
// a pre-registered OAuth client: a secret is never a flag, where other
// users of the machine could read it.
const ClientSecretEnv = "MCP_TESTER_CLIENT_SECRET"

// IdPClientSecretEnv names the environment variable that holds the secret
// of the tester's client at an enterprise identity provider.
const IdPClientSecretEnv = "MCP_TESTER_IDP_CLIENT_SECRET"

// LoginOptions say how to log in to an HTTP server that requires OAuth
// (see internal/client/login). Every command that connects has them.
type LoginOptions struct {
	// Login logs in again even when a login is cached (--login).
	Login bool
	// Identity names the cached login (--identity).
	Identity string
	// ClientID is a pre-registered client (--client-id); its secret comes
	// from MCP_TESTER_CLIENT_SECRET or the profile.
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is a client ID metadata document
	// (--client-metadata-url).
	ClientMetadataURL string
	// ClientCredentials logs in as a machine (--client-credentials), with
	// the secret or ClientKey (--client-key).
	ClientCredentials bool
	ClientKey         string
	// AssertionFile is a workload's JWT for the JWT-bearer grant
	// (--assertion-file).
	AssertionFile string
	// IDTokenFile, IdPIssuer and IdPClientID are an enterprise-managed
	// login (--id-token-file, --idp-issuer, --idp-client-id).
	IDTokenFile, IdPIssuer, IdPClientID string
	// Scopes are asked for besides the server's (--scope).
	Scopes []string
	// RedirectURL is a fixed loopback redirect address (--redirect-url).
	RedirectURL string
	// NoBrowser prints the address and reads back the pasted one
	// (--no-browser).
	NoBrowser bool
	// Timeout bounds a login (--login-timeout), the command's --timeout
	// paused meanwhile; zero: a login ends within the command's --timeout.
	Timeout time.Duration
	// Getenv reads MCP_TESTER_CLIENT_SECRET and MCP_TESTER_BROWSER; nil
	// means the process's environment.
	Getenv func(string) string

	// cachedOnly never starts a login (shell completion).
	cachedOnly bool
	flags      *pflag.FlagSet
	built      *login.Login
	// profile names the profile that gave the settings in profiled (by
	// flag name), so that their errors say where they came from.
	profile  string
	profiled map[string]bool
}

// addLoginFlags binds the login flags.
func addLoginFlags(cmd *cobra.Command, o *LoginOptions) {
	f := cmd.Flags()
	o.flags = f
	f.BoolVar(&o.Login, "login", false, "log in to the HTTP server again even when a login is cached")
	f.StringVar(&o.Identity, "identity", "", `which cached login to use for the HTTP server (default "default")`)
	f.StringVar(&o.ClientID, "client-id", "", "a pre-registered OAuth client id (its secret, if any, from "+ClientSecretEnv+")")
	f.StringVar(&o.ClientMetadataURL, "client-metadata-url", "", "an https URL of a client ID metadata document to use as the OAuth client id")
	f.BoolVar(&o.ClientCredentials, "client-credentials", false, "log in as a machine: OAuth client credentials with --client-id and a secret or --client-key")
	f.StringVar(&o.ClientKey, "client-key", "", "a PEM private key that signs the client credentials assertion (private_key_jwt)")
	f.StringVar(&o.AssertionFile, "assertion-file", "", "log in as a workload: trade the JWT in this file (e.g. a CI job's OIDC token) with the JWT-bearer grant")
	f.StringVar(&o.IDTokenFile, "id-token-file", "", "log in through an enterprise identity provider: trade the OpenID Connect ID token in this file (with --idp-issuer, --idp-client-id)")
	f.StringVar(&o.IdPIssuer, "idp-issuer", "", "the enterprise identity provider's issuer URL (with --id-token-file)")
	f.StringVar(&o.IdPClientID, "idp-client-id", "", "the tester's client id at the identity provider (its secret, if any, from "+IdPClientSecretEnv+")")
	stringsVar(f, &o.Scopes, "scope", "an OAuth scope to ask for besides the ones the server names (repeatable)")
	f.StringVar(&o.RedirectURL, "redirect-url", "", "the loopback address the browser comes back to (default: a free port on 127.0.0.1)")
	f.BoolVar(&o.NoBrowser, "no-browser", false, "do not open a browser: print the login address and read back the address the browser ends on")
	f.DurationVar(&o.Timeout, "login-timeout", 0, "a time limit of its own for an OAuth login, --timeout (or --connect-timeout, when connecting) paused meanwhile (default: the login ends within them)")
}

func (o *LoginOptions) getenv(name string) string {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

func (o *LoginOptions) given(name string) bool {
	return o.flags != nil && o.flags.Changed(name)
}

// settings turns the flags into login settings.
func (o *LoginOptions) settings() login.Settings {
	secret := o.ClientSecret
	if secret == "" {
		secret = o.getenv(ClientSecretEnv)
	}
	return login.Settings{
		Identity:          o.Identity,
		ClientID:          o.ClientID,
		ClientSecret:      secret,
		ClientMetadataURL: o.ClientMetadataURL,
		ClientCredentials: o.ClientCredentials,
		ClientKeyFile:     o.ClientKey,
		AssertionFile:     o.AssertionFile,
		IDTokenFile:       o.IDTokenFile,
		IdPIssuer:         o.IdPIssuer,
		IdPClientID:       o.IdPClientID,
		IdPClientSecret:   o.getenv(IdPClientSecretEnv),
		Scopes:            o.Scopes,
		RedirectURL:       o.RedirectURL,
		NoBrowser:         o.NoBrowser,
		Fresh:             o.Login,
		CachedOnly:        o.cachedOnly,
		Timeout:           o.Timeout,
		Name:              o.settingName,
	}
}

// settingName names a setting of the login for its errors: as the flag
// that gives it (loginFlagName), and the profile when the value came from
// one.
func (o *LoginOptions) settingName(s login.Setting) string {
	return o.shown(loginFlagName(s))
}

// shown is flag ("--redirect-url") as an error names it: with the
// profile it came from, when it did.
func (o *LoginOptions) shown(flag string) string {
	if o.profiled[strings.TrimPrefix(flag, "--")] {
		return flag + fromProfile(o.profile)
	}
	return flag
}

// loginFlagName names a setting of the login as the flag (or the
// environment and profile) that gives it, for the login's errors.
func loginFlagName(s login.Setting) string {
	switch s {
	case login.SettingClientID:
		return "--client-id"
	case login.SettingClientSecret:
		return ClientSecretEnv + ", or client_secret in the profile"
	case login.SettingClientMetadataURL:
		return "--client-metadata-url"
	case login.SettingClientCredentials:
		return "--client-credentials"
	case login.SettingClientKeyFile:
		return "--client-key"
	case login.SettingAssertionFile:
		return "--assertion-file"
	case login.SettingIDTokenFile:
		return "--id-token-file"
	case login.SettingIdPIssuer:
		return "--idp-issuer"
	case login.SettingIdPClientID:
		return "--idp-client-id"
	case login.SettingScopes:
		return "--scope"
	case login.SettingRedirectURL:
		return "--redirect-url"
	case login.SettingNoBrowser:
		return "--no-browser"
	case login.SettingTimeout:
		return "--login-timeout"
	case login.SettingRequestTimeout:
		return "--timeout"
	case login.SettingConnectTimeout:
		return "--connect-timeout"
	case login.SettingHeaders:
		return `-H "Name: value"`
	}
	return ""
}

// build makes the login that every connection of the command shares, once.
func (o *LoginOptions) build(ios *iostreams.IOStreams) (*login.Login, error) {
	if o.built != nil {
		return o.built, nil
	}
	s := o.settings()
	for _, f := range []struct{ name, url string }{{"--client-metadata-url", o.ClientMetadataURL}, {"--idp-issuer", o.IdPIssuer}, {"--redirect-url", o.RedirectURL}} {
		if err := checkURLFlag(ios.ErrOut, o.shown(f.name), f.url); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	cache, err := login.DefaultCache()
	if err != nil {
		return nil, usageErr("%v", err)
	}
	l := &login.Login{Settings: s, Cache: cache, In: ios.In, ErrOut: ios.ErrOut}
	if !s.NoBrowser {
		l.Open = interactive.SystemBrowser(o.getenv, runtime.GOOS).Open
	}
	o.built = l
	return l, nil
}
