package subject

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

// parseAddrBefore is parseAddr as it was, an address alone tried first:
// what parseAddr is held to.
func parseAddrBefore(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone("")
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
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

// parseAddr reads every string as it did when it tried an address alone
// first: the order of its attempts changes what it allocates (a request's
// RemoteAddr, which has a port, no longer fails a parse first), not what it
// reads.
func FuzzParseAddrOrder(f *testing.F) {
	for _, s := range []string{"192.0.2.7", "192.0.2.7:443", "2001:db8::1", "[2001:db8::1]:443", "::1", "[::1]", "::ffff:192.0.2.7",
		"[::ffff:192.0.2.7]:80", "fe80::1%eth0", "[fe80::1%eth0]:80", "1::2:80", "host:80", "", ":80", "[1.2.3.4]:5", "1.2.3.4:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := parseAddr(s), parseAddrBefore(s); got != want {
			t.Fatalf("parseAddr(%q) = %v, want %v", s, got, want)
		}
	})
}

// BenchmarkPeerAddr: a request's RemoteAddr read, which every request of a
// server on httpserve does at least twice (none allocated; 48 B in one
// allocation and about 1 µs when an address alone was tried first, the
// failed parse's error: 2026-12-06, load 30).
func BenchmarkPeerAddr(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !parseAddr("127.0.0.1:54321").IsValid() {
			b.Fatal("no address")
		}
	}
}
