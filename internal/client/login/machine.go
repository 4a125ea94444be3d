package login

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// machine logs in without a person, at the token endpoint the metadata
// names, for the resource the server's metadata names (RFC 8707): the
// client_credentials grant authenticated with the client secret or a
// signed assertion (private_key_jwt, RFC 7523), or the JWT-bearer grant
// with the workload's own token (RFC 7523, workload identity federation).
func (h *Handler) machine(ctx context.Context, req *http.Request, resp *http.Response, p *proofing) error {
	s := &h.l.Settings
	prm, asm, scopes, err := h.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	cfg := &clientcredentials.Config{
		ClientID:       s.ClientID,
		ClientSecret:   s.ClientSecret,
		TokenURL:       asm.TokenEndpoint,
		Scopes:         union(scopes, s.Scopes),
		EndpointParams: url.Values{"resource": {prm.Resource}},
		AuthStyle:      secretStyle(asm.TokenEndpointAuthMethodsSupported),
	}
	grant := GrantClientCredentials
	switch {
	case s.AssertionFile != "":
		assertion, err := readAssertion(s.Name.Word(SettingAssertionFile), s.AssertionFile)
		if err != nil {
			return err
		}
		grant = GrantJWTBearer
		cfg.AuthStyle = oauth2.AuthStyleInParams
		cfg.EndpointParams.Set("grant_type", jwtBearer)
		cfg.EndpointParams.Set("assertion", assertion)
	case s.IDTokenFile != "":
		assertion, err := h.identityAssertion(ctx, prm, asm, cfg.Scopes)
		if err != nil {
			return err
		}
		grant = GrantEnterprise
		cfg.EndpointParams.Set("grant_type", jwtBearer)
		cfg.EndpointParams.Set("assertion", assertion)
	case s.ClientKeyFile != "":
		assertion, err := signAssertion(s.Name.Word(SettingClientKeyFile), s.ClientKeyFile, s.ClientID, asm, h.l.now())
		if err != nil {
			return err
		}
		cfg.AuthStyle = oauth2.AuthStyleInParams
		cfg.EndpointParams.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		cfg.EndpointParams.Set("client_assertion", assertion)
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, h.authClient()))
	if err != nil {
		return fmt.Errorf("%s token request to %s: %w", strings.ReplaceAll(grant, "_", " "), asm.TokenEndpoint, err)
	}
	if err := checkToken(tok); err != nil {
		return err
	}
	e := &Entry{Server: h.server, Identity: h.identity, Grant: grant, ClientID: s.ClientID, Scopes: grantedScopes(tok, cfg.Scopes)}
	e.setToken(tok)
	if err := p.bind(e, tok); err != nil {
		return err
	}
	e.Saved = h.l.now()
	h.install(e, true)
	return nil
}

// discover finds the protected resource metadata (where the challenge
// says, then at the well-known addresses) and the authorization server's
// metadata, with the go-sdk's checks, and the scopes to ask for.
func (h *Handler) discover(ctx context.Context, req *http.Request, resp *http.Response) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, []string, error) {
	ch, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the WWW-Authenticate header cannot be read: %w", err)
	}
	bearer := bearerChallenge(ch)
	client := h.authClient()
	resource := req.URL.String()
	var prm *oauthex.ProtectedResourceMetadata
	var firstErr error
	for _, c := range metadataCandidates(bearer["resource_metadata"], resource) {
		p, err := oauthex.GetProtectedResourceMetadata(ctx, c.url, c.resource, client)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if p != nil {
			prm = p
			break
		}
	}
	if prm == nil {
		return nil, nil, nil, h.l.Settings.explain(fmt.Errorf("no protected resource metadata for %s: %v", resource, firstErr))
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, nil, nil, errors.New("the protected resource metadata names no authorization server")
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], client)
	if err != nil {
		return nil, nil, nil, h.l.Settings.explain(fmt.Errorf("authorization server metadata: %w", err))
	}
	if asm == nil {
		return nil, nil, nil, fmt.Errorf("authorization server %s publishes no metadata", prm.AuthorizationServers[0])
	}
	scopes := strings.Fields(bearer["scope"])
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	return prm, asm, scopes, nil
}

type metadataCandidate struct{ url, resource string }

// metadataCandidates are where protected resource metadata is looked for,
// in the order of the MCP authorization specification: the challenge's
// resource_metadata, the path-suffixed well-known address, the root one.
func metadataCandidates(fromChallenge, resource string) []metadataCandidate {
	var out []metadataCandidate
	if fromChallenge != "" {
		out = append(out, metadataCandidate{fromChallenge, resource})
	}
	u, err := url.Parse(resource)
	if err != nil {
		return out
	}
	w := *u
	w.RawQuery, w.Fragment = "", ""
	w.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	out = append(out, metadataCandidate{w.String(), resource})
	w.Path = "/.well-known/oauth-protected-resource"
	root := *u
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	return append(out, metadataCandidate{w.String(), root.String()})
}

// secretStyle is how the client secret is sent, by what the token
// endpoint supports.
func secretStyle(supported []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(supported, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	case slices.Contains(supported, "client_secret_post"):
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleAutoDetect
}

// jwtBearer is the JWT-bearer grant type (RFC 7523).
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// identityAssertion trades the enterprise's ID token at its identity
// provider for an identity assertion for the server's authorization
// server (token exchange, RFC 8693, with the go-sdk's oauthex).
func (h *Handler) identityAssertion(ctx context.Context, prm *oauthex.ProtectedResourceMetadata, asm *oauthex.AuthServerMeta, scopes []string) (string, error) {
	s := &h.l.Settings
	idToken, err := readAssertion(s.Name.Word(SettingIDTokenFile), s.IDTokenFile)
	if err != nil {
		return "", err
	}
	client := h.l.client()
	tokenURL, err := idpTokenEndpoint(ctx, s.Name.Word(SettingIdPIssuer), s.IdPIssuer, client)
	if err != nil {
		return "", err
	}
	creds := &oauthex.ClientCredentials{ClientID: s.IdPClientID}
	if s.IdPClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: s.IdPClientSecret}
	}
	tok, err := oauthex.ExchangeToken(ctx, tokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           asm.Issuer,
		Resource:           prm.Resource,
		Scope:              scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, client)
	if err != nil {
		return "", fmt.Errorf("token exchange at the identity provider %s: %w", s.IdPIssuer, err)
	}
	return tok.AccessToken, nil
}

// idpTokenEndpoint reads the token endpoint of an identity provider from
// its OpenID Connect discovery document (or OAuth metadata), whose issuer
// must be the one given (name words the IdPIssuer setting in errors). The identity provider is named by the person,
// not by a server, and serves token exchange only: PKCE is not asked of
// it.
func idpTokenEndpoint(ctx context.Context, name, issuer string, client *http.Client) (string, error) {
	base := strings.TrimSuffix(issuer, "/")
	var problems []string
	for _, suffix := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+suffix, nil)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w", name, issuer, err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", fmt.Errorf("identity provider metadata: %w", err)
		}
		var md struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md)
		resp.Body.Close()
		switch {
		case resp.StatusCode != http.StatusOK:
			problems = append(problems, fmt.Sprintf("%s: %s", suffix, resp.Status))
			continue
		case err != nil:
			return "", fmt.Errorf("identity provider metadata at %s: %w", base+suffix, err)
		case strings.TrimSuffix(md.Issuer, "/") != base:
			return "", fmt.Errorf("identity provider metadata at %s names issuer %q, not %q: refused, since another server may be answering for it", base+suffix, printable(md.Issuer), issuer)
		}
		u, err := url.Parse(md.TokenEndpoint)
		if err != nil || (u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
			return "", fmt.Errorf("identity provider metadata at %s: token_endpoint %q is not an https URL", base+suffix, printable(md.TokenEndpoint))
		}
		return md.TokenEndpoint, nil
	}
	return "", fmt.Errorf("identity provider %s publishes no metadata (%s)", issuer, strings.Join(problems, "; "))
}

// readAssertion reads a JWT from a file: one line of three base64url
// parts (name words its setting in errors).
func readAssertion(name, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, path, err)
	}
	if len(data) > maxKeyFile {
		return "", fmt.Errorf("%s %s: larger than %d bytes", name, path, maxKeyFile)
	}
	jwtText := strings.TrimSpace(string(data))
	parts := strings.Split(jwtText, ".")
	if len(parts) != 3 || strings.ContainsFunc(jwtText, func(r rune) bool {
		return !(r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return "", fmt.Errorf("%s %s: not a JWT (three base64url parts separated by dots)", name, path)
	}
	return jwtText, nil
}

// maxKeyFile bounds a key file.
const maxKeyFile = 64 << 10

// signAssertion makes a client assertion (RFC 7523): issuer and subject
// the client id, audience the authorization server's issuer, valid for
// five minutes, with a fresh id, signed with the key in path (name words
// the ClientKeyFile setting in errors).
func signAssertion(name, path, clientID string, asm *oauthex.AuthServerMeta, now time.Time) (string, error) {
	key, method, err := readKey(name, path)
	if err != nil {
		return "", err
	}
	if algs := asm.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, method.Alg()) {
		return "", fmt.Errorf("%s %s signs with %s, but the authorization server takes only %s", name, path, method.Alg(), strings.Join(algs, ", "))
	}
	claims := jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{asm.Issuer},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID:        rand.Text(),
	}
	signed, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("sign the client assertion with %s: %w", path, err)
	}
	return signed, nil
}

// readKey reads a PEM private key (PKCS #8, SEC 1 EC or PKCS #1 RSA) and
// the signing method that fits it.
func readKey(name, path string) (crypto.Signer, jwt.SigningMethod, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", name, path, err)
	}
	if len(data) > maxKeyFile {
		return nil, nil, fmt.Errorf("%s %s: larger than %d bytes", name, path, maxKeyFile)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, nil, fmt.Errorf("%s %s: no PEM block", name, path)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, nil, fmt.Errorf("%s %s: a %q PEM block is not a private key", name, path, block.Type)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", name, path, err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return k, jwt.SigningMethodES256, nil
		case elliptic.P384():
			return k, jwt.SigningMethodES384, nil
		case elliptic.P521():
			return k, jwt.SigningMethodES512, nil
		}
	case *rsa.PrivateKey:
		return k, jwt.SigningMethodRS256, nil
	}
	return nil, nil, fmt.Errorf("%s %s: use an EC (P-256, P-384, P-521) or RSA key", name, path)
}
