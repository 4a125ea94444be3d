package subject

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Who is asking, when nobody signed in.
//
// A server bounds what one caller may hold (task places, single-use states,
// sessions) so that one caller cannot take everything from the others. An
// authenticated caller is its user. A caller without a user is known by what
// the server can see of it: the address its requests come from, read from the
// connection, or from a header that a proxy the operator trusts sets ([Proxies]).
// The HTTP layer puts that client on each request's context ([WithClient],
// [Clients]); the go-sdk hands the context's values on to the handlers (a
// 2025-11-25 session keeps those of the initialize request that opened it), and
// [Share] turns the user, or the client, into the one name every package counts
// under.

// Proxies says which proxies the server believes when they name the client of a
// request in a header. The zero value, and nil, believe no header: the client is
// the peer of the connection. Naming a header without trusted proxies believes it
// from nobody, since any client can send it.
type Proxies struct {
	// Header is the header a trusted proxy names the client in: a list of
	// addresses separated by commas, each proxy appending the address it was
	// reached from (X-Forwarded-For), or one address (X-Real-IP).
	Header string
	// Trusted are the proxies whose Header is believed: the connection's peer
	// must be one of them, and the addresses in the header are read from the
	// last one back, past every trusted proxy, to the first address that is not
	// one (a client cannot pass for another by writing addresses before it).
	Trusted []netip.Prefix
}

// ParseProxies reads a header name and a comma-separated list of trusted proxy
// addresses or prefixes ("10.0.0.0/8, 192.0.2.7"), as flags give them. Both
// empty is nil (no header believed); one without the other is an error.
func ParseProxies(header, trusted string) (*Proxies, error) {
	header = strings.TrimSpace(header)
	trusted = strings.TrimSpace(trusted)
	if header == "" && trusted == "" {
		return nil, nil
	}
	if header == "" {
		return nil, fmt.Errorf("trusted proxies %q given without the header they name the client in", trusted)
	}
	if trusted == "" {
		return nil, fmt.Errorf("client address header %q given without the proxies trusted to set it: any client could set it", header)
	}
	p := &Proxies{Header: http.CanonicalHeaderKey(header)}
	for _, s := range strings.Split(trusted, ",") {
		s = strings.TrimSpace(s)
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("trusted proxy %q: not an address or a prefix (192.0.2.7, 10.0.0.0/8, 2001:db8::/32)", s)
			}
			pfx = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		p.Trusted = append(p.Trusted, pfx.Masked())
	}
	return p, nil
}

// Trusts reports whether a is one of the trusted proxies.
func (p *Proxies) Trusts(a netip.Addr) bool {
	if p == nil || p.Header == "" || !a.IsValid() {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, pfx := range p.Trusted {
		if pfx.Contains(a) {
			return true
		}
	}
	return false
}

// PeerAddr returns the address of the peer of r's connection (its RemoteAddr),
// or the zero Addr when it has none that parses.
func PeerAddr(r *http.Request) netip.Addr {
	if r == nil {
		return netip.Addr{}
	}
	return parseAddr(r.RemoteAddr)
}

// ClientAddr returns the address of the client r comes from: the peer of its
// connection or, when the peer is a trusted proxy that sent the header, the
// last address in the header that is not a trusted proxy. An address in the
// header that does not parse ends the reading: the client is then the last
// trusted proxy read. It returns the zero Addr when even the peer is unknown.
func (p *Proxies) ClientAddr(r *http.Request) netip.Addr {
	peer := PeerAddr(r)
	if !p.Trusts(peer) {
		return peer
	}
	client := peer
	values := r.Header.Values(p.Header)
	for i := len(values) - 1; i >= 0; i-- {
		parts := strings.Split(values[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a := parseAddr(strings.TrimSpace(parts[j]))
			if !a.IsValid() {
				return client
			}
			client = a
			if !p.Trusts(a) {
				return client
			}
		}
	}
	return client
}

// parseAddr reads an address with or without a port ("192.0.2.7",
// "192.0.2.7:443", "2001:db8::1", "[2001:db8::1]:443"), unmapped, without a
// zone. An address with a port, as every request's RemoteAddr is, is tried
// first: a string that is one is never an address alone (nor the other way
// round), and a failed parse allocates its error.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone("")
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone("")
		}
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return a.Unmap().WithZone("")
		}
	}
	return netip.Addr{}
}

// ClientOfAddr names the client at address a, as [WithClient] takes it: an
// IPv4 address as it is, an IPv6 address by its /64 (one host is given a /64
// to itself, and could otherwise be 2^64 clients). The zero Addr is "", no
// client known.
func ClientOfAddr(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		return "addr:" + netip.PrefixFrom(a, 64).Masked().String()
	}
	return "addr:" + a.String()
}

// Client names the client of r as p reads it (see [Proxies.ClientAddr] and
// [ClientOfAddr]).
func (p *Proxies) Client(r *http.Request) string {
	return ClientOfAddr(p.ClientAddr(r))
}

type clientKey struct{}

// WithClient returns ctx carrying the name of the client a request comes from
// (as [ClientOfAddr] makes it; "" for none).
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// Client returns the client ctx carries ("" when none was set).
func Client(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// Clients wraps h so that each request's context carries its client as p reads
// it ([WithClient]), unless an outer layer set one already. nil p reads the
// peer of the connection.
func Clients(h http.Handler, p *Proxies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, WithRequestClient(r, p))
	})
}

// WithRequestClient returns r with its client on its context (as [Clients]
// puts it), or r itself when its context carries one already.
func WithRequestClient(r *http.Request, p *Proxies) *http.Request {
	if Client(r.Context()) != "" {
		return r
	}
	c := p.Client(r)
	if c == "" {
		return r
	}
	return r.WithContext(WithClient(r.Context(), c))
}

// anonymous starts every name [Share] gives a caller without a user; a user
// whose name starts with it is given one more, so that no user and no client
// share a name.
const anonymous = "~"

// Share returns the name under which what a request takes of a bounded
// resource (a task place, a single-use state, a session) is counted, so that
// one caller cannot take every place: the user when there is one; otherwise
// the client ctx carries ([Client]), as "~addr:192.0.2.7" or
// "~addr:2001:db8::/64"; otherwise "" (a caller nobody can tell apart, as over
// stdio: all such share one allowance). A user named with a leading "~" is
// counted as "~" + the name: a user and a client never share a count.
func Share(ctx context.Context, user string) string {
	if user != "" {
		if strings.HasPrefix(user, anonymous) {
			return anonymous + user
		}
		return user
	}
	if c := Client(ctx); c != "" {
		return anonymous + c
	}
	return ""
}

// Anonymous reports whether a name [Share] returned is a client's rather than a
// user's.
func Anonymous(share string) bool {
	return strings.HasPrefix(share, anonymous) && !strings.HasPrefix(share, anonymous+anonymous)
}
