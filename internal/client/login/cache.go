package login

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/lazyre"
)

// DefaultIdentity is the identity of a login that names none.
const DefaultIdentity = "default"

// Grants an Entry may come from.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "jwt_bearer"
	GrantEnterprise        = "enterprise"
)

// Entry is one cached login: a token for one server and identity, and
// what is needed to refresh it. It holds credentials: it is only ever
// written to a file readable by the user alone, and never printed.
type Entry struct {
	// Server is the MCP server's URL, as Key spells it.
	Server string `json:"server"`
	// Identity names the login among several to the same server.
	Identity string `json:"identity"`
	// Grant is how the token was obtained.
	Grant string `json:"grant"`
	// ClientID and ClientSecret are the OAuth client that obtained the
	// token (registered dynamically, pre-registered or a metadata URL).
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// TokenURL and AuthStyle are how the token is refreshed.
	TokenURL  string           `json:"token_url,omitempty"`
	AuthStyle oauth2.AuthStyle `json:"auth_style,omitempty"`
	// Scopes are the scopes granted (or, when the server did not say,
	// requested).
	Scopes []string `json:"scopes,omitempty"`
	// AccessToken, TokenType, RefreshToken and Expiry are the token.
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// DPoPKey is the login's DPoP key pair (PKCS #8, base64url) when the
	// token is DPoP-bound (TokenType DPoP): every request that presents
	// the token, and every refresh, is proved with it.
	DPoPKey string `json:"dpop_key,omitempty"`
	// Saved is when the entry was last written.
	Saved time.Time `json:"saved"`
}

// Token returns the entry's token.
func (e *Entry) Token() *oauth2.Token {
	return &oauth2.Token{AccessToken: e.AccessToken, TokenType: e.TokenType, RefreshToken: e.RefreshToken, Expiry: e.Expiry}
}

// setToken copies t into the entry; a token without a refresh token keeps
// the one the entry had (servers need not rotate it).
func (e *Entry) setToken(t *oauth2.Token) {
	e.AccessToken, e.TokenType, e.Expiry = t.AccessToken, t.TokenType, t.Expiry
	if t.RefreshToken != "" {
		e.RefreshToken = t.RefreshToken
	}
}

// Cache keeps logins in a directory, one file per server and identity,
// readable only by the user. The zero value is not usable: give Dir.
type Cache struct {
	// Dir is the directory of the files; DefaultDir gives the usual one.
	Dir string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// DefaultDir returns the token directory under the user's configuration
// directory (configDir, as os.UserConfigDir gives it).
func DefaultDir(configDir string) string {
	return filepath.Join(configDir, "mcp-tester", "tokens")
}

// maxEntrySize bounds what Load reads from one file.
const maxEntrySize = 64 << 10

var identityPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidIdentity reports an error for a name that cannot name an identity.
func ValidIdentity(name string) error {
	if !identityPattern.MatchString(name) {
		return fmt.Errorf("identity %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// Key returns the spelling of a server URL under which its logins are
// cached: scheme and host in lower case, no default port, no user
// information, no fragment. Two spellings of one server share a login.
func Key(server string) (string, error) {
	if err := urlcheck.ServerURL(server); err != nil {
		return "", fmt.Errorf("server %s: %v", credential.RedactURL(server), err)
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", fmt.Errorf("server %s: %v", credential.RedactURL(server), err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		u.Host = u.Hostname()
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// path returns the file of a server and identity.
func (c *Cache) path(server, identity string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:10])+"."+identity+".json")
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Load returns the login for server and identity, or nil when there is
// none. A file that others may read is refused, not used.
func (c *Cache) Load(server, identity string) (*Entry, error) {
	server, err := Key(server)
	if err != nil {
		return nil, err
	}
	if err := ValidIdentity(identity); err != nil {
		return nil, err
	}
	e, err := c.read(c.path(server, identity))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e.Server != server || e.Identity != identity {
		return nil, fmt.Errorf("token cache %s holds the login of %s as %s, not %s as %s: remove the file", c.path(server, identity), e.Server, e.Identity, server, identity)
	}
	return e, nil
}

// read reads and strictly decodes one file.
func (c *Cache) read(path string) (*Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("token cache %s can be read by others (mode %04o): refusing to use it; run chmod 600 %s, or mcp-tester auth logout to remove it", path, st.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEntrySize+1))
	if err != nil {
		return nil, err
	}
	e, err := DecodeEntry(data)
	if err != nil {
		return nil, fmt.Errorf("token cache %s: %w (remove it with mcp-tester auth logout)", path, err)
	}
	return e, nil
}

// DecodeEntry decodes a cache file's content: one JSON object with the
// known fields only, a server URL, an identity and an access token.
func DecodeEntry(data []byte) (*Entry, error) {
	if len(data) > maxEntrySize {
		return nil, fmt.Errorf("larger than %d bytes", maxEntrySize)
	}
	var e Entry
	if err := strictjson.DecodeKnown(data, &e); err != nil {
		return nil, fmt.Errorf("not a login: %w", err)
	}
	if _, err := Key(e.Server); err != nil {
		return nil, fmt.Errorf("not a login: %w", err)
	}
	if err := ValidIdentity(e.Identity); err != nil {
		return nil, fmt.Errorf("not a login: %w", err)
	}
	if e.AccessToken == "" {
		return nil, errors.New("not a login: no access token")
	}
	if err := checkToken(e.Token()); err != nil {
		return nil, fmt.Errorf("not a login: %w", err)
	}
	switch e.Grant {
	case GrantAuthorizationCode, GrantClientCredentials, GrantJWTBearer, GrantEnterprise:
	default:
		return nil, fmt.Errorf("not a login: grant %q", e.Grant)
	}
	switch {
	case isDPoP(e.TokenType) && e.DPoPKey == "":
		return nil, errors.New("not a login: a DPoP token without its key")
	case !isDPoP(e.TokenType) && e.DPoPKey != "":
		return nil, fmt.Errorf("not a login: a DPoP key with a token of type %q", e.TokenType)
	case e.DPoPKey != "":
		if _, err := parseProofKey(e.DPoPKey); err != nil {
			return nil, fmt.Errorf("not a login: %w", err)
		}
	}
	return &e, nil
}

// Save writes e, replacing the file of its server and identity at once,
// readable and writable by the user only.
func (c *Cache) Save(e *Entry) error {
	server, err := Key(e.Server)
	if err != nil {
		return err
	}
	if err := ValidIdentity(e.Identity); err != nil {
		return err
	}
	e.Server = server
	e.Saved = c.now().UTC().Truncate(time.Second)
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("save the login: %w", err)
	}
	if err := outfile.WritePrivate(c.path(server, e.Identity), append(data, '\n')); err != nil {
		return fmt.Errorf("save the login: %w", err)
	}
	return nil
}

// Delete removes the login of server and identity, reporting whether
// there was one.
func (c *Cache) Delete(server, identity string) (bool, error) {
	server, err := Key(server)
	if err != nil {
		return false, err
	}
	if err := ValidIdentity(identity); err != nil {
		return false, err
	}
	err = os.Remove(c.path(server, identity))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove the login: %w", err)
	}
	return true, nil
}

// maxEntries bounds how many files List reads.
const maxEntries = 10000

// List returns every cached login, by server then identity. A file that
// cannot be used is reported in problems (with its reason) and left out.
func (c *Cache) List() (entries []*Entry, problems []error, err error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the token cache: %w", err)
	}
	for i, de := range des {
		if i >= maxEntries {
			problems = append(problems, fmt.Errorf("token cache %s: more than %d files; the rest are not listed", c.Dir, maxEntries))
			break
		}
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".json") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		e, err := c.read(filepath.Join(c.Dir, de.Name()))
		if err != nil {
			problems = append(problems, err)
			continue
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].Server != entries[j].Server {
			return entries[i].Server < entries[j].Server
		}
		return entries[i].Identity < entries[j].Identity
	})
	return entries, problems, nil
}
