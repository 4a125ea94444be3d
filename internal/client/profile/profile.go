// Package profile keeps named ways to reach a server in a YAML file,
// mcp-tester.yml, so that a command line can say `-p staging` instead of a
// URL, headers and a protocol version. Values may refer to environment
// variables as ${NAME}, so that tokens stay out of the file.
//
// The file is looked for in the working directory first, then in the
// user's configuration directory (mcp-tester/mcp-tester.yml under
// os.UserConfigDir).
package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/lazyre"
)

// FileName is the name of a profiles file.
const FileName = "mcp-tester.yml"

// Profile is a named way to reach a server.
type Profile struct {
	// Command is a shell command line that starts a stdio server.
	Command string `yaml:"command,omitempty" json:"command,omitempty"`
	// URL is the endpoint of an HTTP server.
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
	// Headers are sent with every HTTP request, by name.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Transport is auto, streamable or sse.
	Transport string `yaml:"transport,omitempty" json:"transport,omitempty"`
	// Protocol is the protocol version to speak.
	Protocol string `yaml:"protocol,omitempty" json:"protocol,omitempty"`
	// Timeout bounds each request once connected, as a Go duration
	// ("30s").
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// ConnectTimeout bounds starting or reaching the server and the
	// initialize handshake, as a Go duration ("2m"; "0s": no limit).
	ConnectTimeout string `yaml:"connect_timeout,omitempty" json:"connect_timeout,omitempty"`
	// Disabled keeps the profile in the file but refuses -p NAME (profile
	// disable / enable; the field the earlier mcp-tester wrote).
	Disabled bool `yaml:"disabled,omitempty" json:"disabled,omitempty"`
	// Auth says how to log in to an HTTP server that requires OAuth.
	Auth *Auth `yaml:"auth,omitempty" json:"auth,omitempty"`
}

// Auth says how to log in to a profile's HTTP server that requires OAuth
// (the login flags of every command, by the same names).
type Auth struct {
	// Identity names the cached login.
	Identity string `yaml:"identity,omitempty" json:"identity,omitempty"`
	// ClientID and ClientSecret are a pre-registered client; write the
	// secret as ${ENV_VAR}.
	ClientID     string `yaml:"client_id,omitempty" json:"client_id,omitempty"`
	ClientSecret string `yaml:"client_secret,omitempty" json:"client_secret,omitempty"`
	// ClientMetadataURL is a client ID metadata document.
	ClientMetadataURL string `yaml:"client_metadata_url,omitempty" json:"client_metadata_url,omitempty"`
	// ClientCredentials logs in as a machine, with the secret or ClientKey.
	ClientCredentials bool   `yaml:"client_credentials,omitempty" json:"client_credentials,omitempty"`
	ClientKey         string `yaml:"client_key,omitempty" json:"client_key,omitempty"`
	// AssertionFile is a workload's JWT for the JWT-bearer grant.
	AssertionFile string `yaml:"assertion_file,omitempty" json:"assertion_file,omitempty"`
	// IDTokenFile, IdPIssuer and IdPClientID are an enterprise-managed
	// login through an identity provider.
	IDTokenFile string `yaml:"id_token_file,omitempty" json:"id_token_file,omitempty"`
	IdPIssuer   string `yaml:"idp_issuer,omitempty" json:"idp_issuer,omitempty"`
	IdPClientID string `yaml:"idp_client_id,omitempty" json:"idp_client_id,omitempty"`
	// Scopes are asked for besides the server's.
	Scopes []string `yaml:"scopes,omitempty" json:"scopes,omitempty"`
	// RedirectURL is a fixed loopback redirect address.
	RedirectURL string `yaml:"redirect_url,omitempty" json:"redirect_url,omitempty"`
	// NoBrowser prints the login address instead of opening a browser.
	NoBrowser bool `yaml:"no_browser,omitempty" json:"no_browser,omitempty"`
}

// File is the content of a profiles file.
type File struct {
	Profiles map[string]*Profile `yaml:"profiles" json:"profiles"`
}

// namePattern is what a profile name may look like.
var namePattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidName reports an error for a name that is not a usable profile name.
func ValidName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("profile name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// Validate checks a profile as written (before expansion).
func (p *Profile) Validate() error {
	switch {
	case p.Command == "" && p.URL == "":
		return errors.New("it names no server: give a command or a url")
	case p.Command != "" && p.URL != "":
		return errors.New("it gives both a command and a url; keep one")
	}
	if p.URL != "" && !strings.Contains(p.URL, "${") {
		// (One that refers to the environment is checked once expanded.)
		if err := urlcheck.ServerURL(p.URL); err != nil {
			return fmt.Errorf("url %s: %v", credential.RedactURL(p.URL), err)
		}
	}
	if p.Auth != nil && p.Command != "" {
		return errors.New("auth is for a url: a command server needs no login")
	}
	for _, f := range []struct{ key, v string }{{"timeout", p.Timeout}, {"connect_timeout", p.ConnectTimeout}} {
		if _, err := duration(f.key, f.v); err != nil {
			return err
		}
	}
	return nil
}

// TimeoutDuration returns the profile's timeout, zero when unset.
func (p *Profile) TimeoutDuration() (time.Duration, error) {
	return duration("timeout", p.Timeout)
}

// ConnectTimeoutDuration returns the profile's connect_timeout, and
// whether it is set.
func (p *Profile) ConnectTimeoutDuration() (time.Duration, bool, error) {
	d, err := duration("connect_timeout", p.ConnectTimeout)
	return d, p.ConnectTimeout != "", err
}

// duration reads the duration v of key, zero when unset.
func duration(key, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s %q: write a duration such as 30s or 2m", key, v)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s %q: a time can not be negative", key, v)
	}
	return d, nil
}

// HeaderLines returns the headers as "Name: value" lines in name order.
func (p *Profile) HeaderLines() []string {
	names := make([]string, 0, len(p.Headers))
	for n := range p.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, n+": "+p.Headers[n])
	}
	return out
}

// maxFileSize bounds what Load reads.
const maxFileSize = 1 << 20

// Parse reads a profiles file's content.
func Parse(data []byte) (*File, error) {
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	// A key the file format does not know (a misspelt "timout") is named,
	// with its line and the keys that are known, rather than left out
	// without a word; so is a part of the wrong shape.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if err := checkShape(&doc); err != nil {
		return nil, err
	}
	f := &File{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if f.Profiles == nil {
		f.Profiles = map[string]*Profile{}
	}
	for name, p := range f.Profiles {
		if p == nil {
			f.Profiles[name] = &Profile{}
		}
	}
	return f, nil
}

// Load reads the profiles file at path. A file that does not exist is an
// error that satisfies errors.Is(err, fs.ErrNotExist).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	var fe *Error
	if errors.As(err, &fe) {
		fe.Path = path
		return nil, fe
	}
	if err != nil {
		return nil, fmt.Errorf("read profiles from %s: %w", path, err)
	}
	return f, nil
}

// Save writes the file to path, creating its directory, readable only by
// the user (profiles may name tokens even when they should not).
func (f *File) Save(path string) error {
	data, err := yaml.Marshal(f)
	if err != nil {
		return fmt.Errorf("write profiles: %w", err)
	}
	if err := outfile.WritePrivate(path, data); err != nil {
		return fmt.Errorf("write profiles: %w", err)
	}
	return nil
}

// Names returns the profile names in order.
func (f *File) Names() []string {
	out := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Places are where profiles files are looked for, in order.
type Places struct {
	// Dir is the working directory's file.
	Dir string
	// User is the file in the user's configuration directory; empty when
	// there is none.
	User string
}

// DefaultPlaces returns the places for the working directory wd and the
// user's configuration directory configDir (os.UserConfigDir; empty when
// unknown).
func DefaultPlaces(wd, configDir string) Places {
	p := Places{Dir: filepath.Join(wd, FileName)}
	if configDir != "" {
		p.User = filepath.Join(configDir, "mcp-tester", FileName)
	}
	return p
}

// List returns the places in search order.
func (p Places) List() []string {
	out := []string{p.Dir}
	if p.User != "" {
		out = append(out, p.User)
	}
	return out
}

// A NotFoundError is Lookup's error for a name no file has a profile of.
type NotFoundError struct {
	Name   string
	Places []string // the files looked in, in search order
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no profile %q in %s", e.Name, strings.Join(e.Places, " or "))
}

// Lookup finds a profile by name in the first file that has it; a
// *NotFoundError when none has.
func (p Places) Lookup(name string) (*Profile, string, error) {
	for _, path := range p.List() {
		f, err := Load(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if pr, ok := f.Profiles[name]; ok {
			return pr, path, nil
		}
	}
	return nil, "", &NotFoundError{Name: name, Places: p.List()}
}
