package inspect

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askback/askback/internal/platform/outfile"
)

// OwnedIcon is an icon and what it belongs to.
type OwnedIcon struct {
	Owner string // e.g. `server`, `tool "deploy"`
	Icon  mcp.Icon
}

// IconCheck is the outcome of checking one icon.
type IconCheck struct {
	Owner    string `json:"owner"`
	Source   string `json:"src"`
	OK       bool   `json:"ok"`
	Problem  string `json:"problem,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Bytes    int    `json:"bytes,omitempty"`
	// File is where the icon was saved, when downloading.
	File string `json:"file,omitempty"`
}

// Limits of icon checking.
const (
	MaxIcons     = 64      // icons checked per server; more are reported, not fetched
	MaxIconBytes = 1 << 20 // larger icons fail the check
	iconTimeout  = 5 * time.Second
)

// Icons returns the icons of the server, its tools, prompts, resources and
// templates, each source once (with its first owner).
func Icons(s *Server) []OwnedIcon {
	var out []OwnedIcon
	seen := map[string]bool{}
	add := func(owner string, icons []mcp.Icon) {
		for _, ic := range icons {
			if !seen[ic.Source] {
				seen[ic.Source] = true
				out = append(out, OwnedIcon{Owner: owner, Icon: ic})
			}
		}
	}
	if s.Info != nil && s.Info.ServerInfo != nil {
		add("server", s.Info.ServerInfo.Icons)
	}
	for _, t := range s.Tools {
		add(fmt.Sprintf("tool %q", t.Name), t.Icons)
	}
	for _, p := range s.Prompts {
		add(fmt.Sprintf("prompt %q", p.Name), p.Icons)
	}
	for _, r := range s.Resources {
		add(fmt.Sprintf("resource %q", r.URI), r.Icons)
	}
	for _, r := range s.Templates {
		add(fmt.Sprintf("resource template %q", r.URITemplate), r.Icons)
	}
	return out
}

// IconOptions configure CheckIcons.
type IconOptions struct {
	// Client fetches http(s) icons; nil means a client with a 5 s limit
	// and at most 3 redirects.
	Client *http.Client
	// Dir, when set, is where icons are saved, each under a name made from
	// the hash of its source (never a name the server chose).
	Dir string
	// ServerURL is the address of the server the icons are of, when it is
	// reached over HTTP: the default client fetches icons at its host and
	// port even when that is a private address (the tester talks to it
	// already), and at no other private address.
	ServerURL string
}

// CheckIcons fetches (or decodes) each icon and checks that it is an image
// of reasonable size. Only https, http and data URIs are followed.
func CheckIcons(ctx context.Context, icons []OwnedIcon, opts IconOptions) []IconCheck {
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: iconTimeout, Transport: publicTransport(opts.ServerURL), CheckRedirect: iconRedirect}
	}
	out := make([]IconCheck, 0, len(icons))
	for i, oi := range icons {
		if i >= MaxIcons {
			out = append(out, IconCheck{Owner: oi.Owner, Source: oi.Icon.Source, Problem: fmt.Sprintf("not checked: more than %d icons", MaxIcons)})
			continue
		}
		out = append(out, checkIcon(ctx, client, oi, opts.Dir))
	}
	return out
}

// iconRedirect follows at most 3 redirects of an icon's fetch, and only
// to http(s).
func iconRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("more than 3 redirects")
	}
	if req.URL.Scheme != "https" && req.URL.Scheme != "http" {
		return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
	}
	return nil
}

// checkIcon fetches (or decodes) one icon, checks that it is an image,
// and saves it in dir when dir is set.
func checkIcon(ctx context.Context, client *http.Client, oi OwnedIcon, dir string) IconCheck {
	c := IconCheck{Owner: oi.Owner, Source: oi.Icon.Source}
	data, ctype, err := fetchIcon(ctx, client, oi.Icon.Source)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.Bytes = len(data)
	c.MIMEType = imageType(ctype, oi.Icon.MIMEType, data)
	if c.MIMEType == "" {
		c.Problem = fmt.Sprintf("not an image (content type %q)", ctype)
		return c
	}
	c.OK = true
	if dir != "" {
		f, err := saveIcon(dir, oi.Icon.Source, c.MIMEType, data)
		if err != nil {
			c.Problem = err.Error()
		}
		c.File = f
	}
	return c
}

// fetchIcon returns the bytes and content type of the icon at src: a
// data: URI decoded, or an http(s) URL fetched within iconTimeout.
func fetchIcon(ctx context.Context, client *http.Client, src string) ([]byte, string, error) {
	if strings.HasPrefix(src, "data:") {
		return decodeDataURI(src)
	}
	u, err := url.Parse(src)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, "", fmt.Errorf("not an http(s) or data: URI")
	}
	ctx, cancel := context.WithTimeout(ctx, iconTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		var refused *refusedAddr
		if errors.As(err, &refused) {
			return nil, "", refused
		}
		return nil, "", fmt.Errorf("unreachable: %v", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	data, err := readIcon(resp)
	return data, resp.Header.Get("Content-Type"), err
}

// readIcon reads the body of a 200 answer, at most MaxIconBytes.
func readIcon(resp *http.Response) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxIconBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading: %v", err)
	}
	if len(data) > MaxIconBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxIconBytes)
	}
	return data, nil
}

// decodeDataURI reads a data: URI (base64 or percent-encoded).
func decodeDataURI(src string) ([]byte, string, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
	if !ok {
		return nil, "", errors.New("a data: URI without a comma")
	}
	if len(payload) > MaxIconBytes*4/3+4 {
		return nil, "", fmt.Errorf("larger than %d bytes", MaxIconBytes)
	}
	ctype, isBase64 := strings.CutSuffix(meta, ";base64")
	if isBase64 {
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return nil, "", fmt.Errorf("a data: URI with bad base64")
		}
		return data, ctype, nil
	}
	data, err := url.PathUnescape(payload)
	if err != nil {
		return nil, "", fmt.Errorf("a data: URI with bad escapes")
	}
	return []byte(data), ctype, nil
}

// imageExt are the image types inspect accepts, with the extension a saved
// icon gets.
var imageExt = map[string]string{
	"image/png":                ".png",
	"image/jpeg":               ".jpg",
	"image/gif":                ".gif",
	"image/webp":               ".webp",
	"image/svg+xml":            ".svg",
	"image/x-icon":             ".ico",
	"image/vnd.microsoft.icon": ".ico",
	"image/avif":               ".avif",
}

// imageType decides the image type from the served type, the declared
// type and the bytes; "" when it is not an image.
func imageType(served, declared string, data []byte) string {
	for _, t := range []string{served, declared} {
		mt, _, err := mime.ParseMediaType(t)
		if err == nil {
			if _, ok := imageExt[mt]; ok {
				return mt
			}
		}
	}
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	if _, ok := imageExt[sniffed]; ok {
		return sniffed
	}
	return ""
}

// saveIcon writes data into dir under a name derived from the source's
// hash, so that a server cannot choose where it lands.
func saveIcon(dir, src, mimeType string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("saving: %v", err)
	}
	sum := sha256.Sum256([]byte(src))
	name := filepath.Join(dir, hex.EncodeToString(sum[:8])+imageExt[mimeType])
	if err := outfile.Write(name, data, 0o644); err != nil {
		return "", fmt.Errorf("saving: %v", err)
	}
	return name, nil
}

// publicTransport is an HTTP transport that connects to public addresses
// only: the address checked is the one dialed, after the name is resolved
// (a name that resolves to 127.0.0.1 is refused as 127.0.0.1 is), on every
// connection, redirects included, and no proxy stands between. The host
// and port of serverURL, the server's own, are the one exception.
func publicTransport(serverURL string) *http.Transport {
	own := ""
	if u, err := url.Parse(serverURL); err == nil && u.Host != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		own = net.JoinHostPort(u.Hostname(), port)
	}
	public := &net.Dialer{Timeout: iconTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("refused: %s is no address", address)
		}
		if why := privateAddr(ap.Addr()); why != "" {
			return &refusedAddr{addr: ap.Addr(), why: why}
		}
		return nil
	}}
	direct := &net.Dialer{Timeout: iconTimeout}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if own != "" && addr == own {
			return direct.DialContext(ctx, network, addr)
		}
		return public.DialContext(ctx, network, addr)
	}
	return t
}

// refusedAddr is an address an icon is not fetched from.
type refusedAddr struct {
	addr netip.Addr
	why  string
}

func (e *refusedAddr) Error() string {
	return fmt.Sprintf("refused: %s is %s (icons are fetched from public addresses only, and from the server's own)", e.addr, e.why)
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598), and
// nat64 the well-known prefix that embeds an IPv4 address (RFC 6052).
var (
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// privateAddr says what kind of address a is when it is none a server may
// have the tester reach (loopback, link-local, private, unspecified,
// multicast, shared), "" when it is public.
func privateAddr(a netip.Addr) string {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsPrivate(), cgnat.Contains(a):
		return "a private address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	return ""
}
