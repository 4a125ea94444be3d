package urlcheck

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Server is where the server that sends a link runs, as the client reached
// it. A link to this machine or to a private network is what a server on
// this machine (or on that network) may well send, its own page; the same
// link from a server elsewhere points the person's browser, with their
// cookies, at the services of their own machine or network, which the
// server cannot reach itself. Check warns about such a link (ThisMachine,
// PrivateNetwork) unless the server is there too.
//
// The zero Server is a server whose place is not known: it counts as
// elsewhere.
type Server struct {
	// Local: the server runs on this machine: a command the client
	// started (over stdio: whatever the command reaches further is its
	// own business), a server in the client's process, or a URL whose host
	// is this machine (see IsLoopback; 0.0.0.0 and :: too).
	Local bool
	// Host is the host of the server's URL (lower case, without port or
	// brackets), as Describe names it; empty when not known.
	Host string
}

// LocalServer is a server on this machine: a command the client started,
// or a server in the client's process.
func LocalServer() Server { return Server{Local: true} }

// ServerAt is the server reached at rawURL. A URL that does not read is a
// server whose place is not known.
func ServerAt(rawURL string) Server {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Server{}
	}
	host := strings.ToLower(u.Hostname())
	return Server{Local: thisMachine(host), Host: host}
}

// notOn says that the server is not on where (this machine, that
// network), for a warning.
func (s Server) notOn(where string) string {
	if s.Host == "" {
		return "the server is not known to be on " + where
	}
	return "the server is at " + s.Host + ", not on " + where
}

// thisMachine reports whether host (lower case, without port or
// brackets) is this machine: localhost, a name under .localhost, a
// loopback address (IPv4 written as IPv6 too), or the unspecified address
// (0.0.0.0, ::), which browsers and connect(2) take for this machine.
func thisMachine(host string) bool {
	if IsLoopback(host) || host == "localhost.localdomain" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsUnspecified()
}

// privateNetworks are the address ranges of networks of one's own, which
// a server elsewhere cannot reach but the person's browser can: RFC 1918,
// shared address space (RFC 6598, carrier-grade NAT and overlay networks),
// link-local (cloud metadata services among them) and unique local IPv6.
func privateNetworks() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fc00::/7"),
		netip.MustParsePrefix("fe80::/10"),
	}
}

// privateNames are the domains reserved for names of one's own network
// (mDNS's .local, RFC 8375's home.arpa, ICANN's .internal).
func privateNames() []string { return []string{"local", "home.arpa", "internal"} }

// network is the private network host is on: the range of its address, or
// "names" for a name under a private domain; "" for anything else.
func network(host string, addr netip.Addr) string {
	if addr.IsValid() {
		addr = addr.Unmap()
		for _, p := range privateNetworks() {
			if p.Contains(addr) {
				return p.String()
			}
		}
		return ""
	}
	name := strings.TrimSuffix(host, ".")
	for _, d := range privateNames() {
		if name == d || strings.HasSuffix(name, "."+d) {
			return "names"
		}
	}
	return ""
}

// hostAddr is the address host stands for when it is one, in any
// spelling a browser reads (see browserIPv4); invalid for names.
func hostAddr(host string) netip.Addr {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap()
	}
	if addr, numeric, err := browserIPv4(host); numeric && err == nil {
		return addr
	}
	return netip.Addr{}
}

// placeWarnings warn about a link to this machine or to a private network
// from a server that is not there.
func (r *Report) placeWarnings(from Server) {
	if from.Local {
		return
	}
	addr := hostAddr(r.Host)
	if thisMachine(r.Host) || (addr.IsValid() && (addr.IsLoopback() || addr.IsUnspecified())) {
		r.warn(ThisMachine, "the link points at this machine (%s), but %s: opening it would send your browser, with its cookies, to what runs here at the server's bidding", r.Host, from.notOn("this machine"))
		return
	}
	nw := network(r.Host, addr)
	if nw == "" {
		return
	}
	fromNw := network(from.Host, hostAddr(from.Host))
	if fromNw != "" && (fromNw == nw || fromNw == "names" || nw == "names") {
		// The server is on a private network too, as far as can be
		// told without resolving names: maybe this one.
		return
	}
	what := fmt.Sprintf("a private network address (%s)", r.Host)
	if nw == "names" {
		what = fmt.Sprintf("a name of a private network (%s)", r.Host)
	}
	r.warn(PrivateNetwork, "the link points at %s, but %s: opening it would send your browser, with its cookies, to what runs there at the server's bidding", what, from.notOn("that network"))
}
