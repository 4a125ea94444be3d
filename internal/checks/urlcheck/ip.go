package urlcheck

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// errNotIPv4 says that a host that ends in a number is not an address a
// browser accepts.
var errNotIPv4 = errors.New("not a valid IPv4 address")

// browserIPv4 reads host as a browser does (the WHATWG URL standard's IPv4
// parser): a host whose last label is a number is an IPv4 address, written
// in one to four parts, each decimal, octal (a leading 0) or hexadecimal
// (0x), the last part filling the bytes left ("127.1", "0x7f.1",
// "3232235777", "0177.0.0.1"). Full-width digits and dots are read as
// their ASCII forms, as browsers map them before parsing.
//
// numeric is false when host is a name; err is set when it ends in a number
// but is no address (browsers refuse such a URL).
func browserIPv4(host string) (addr netip.Addr, numeric bool, err error) {
	parts, numeric := numericHost(foldWidth(host))
	if !numeric {
		return netip.Addr{}, false, nil
	}
	addr, err = ipv4FromParts(parts)
	return addr, true, err
}

// numericHost splits host into its labels (a trailing dot left out) and
// reports whether its last label is a number, which makes the host an
// IPv4 address to a browser.
func numericHost(host string) (parts []string, numeric bool) {
	parts = strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return nil, false
	}
	if _, ok := ipv4Number(last); !ok && strings.Trim(last, "0123456789") != "" {
		return nil, false
	}
	return parts, true
}

// ipv4FromParts reads the one to four parts of an IPv4 address, the last
// filling the bytes left.
func ipv4FromParts(parts []string) (netip.Addr, error) {
	if len(parts) > 4 {
		return netip.Addr{}, errNotIPv4
	}
	var n [4]uint64
	for i, p := range parts {
		v, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, errNotIPv4
		}
		n[i] = v
	}
	var v uint64
	for i := 0; i < len(parts)-1; i++ {
		if n[i] > 255 {
			return netip.Addr{}, errNotIPv4
		}
		v = v<<8 | n[i]
	}
	rest := 8 * (5 - len(parts))
	if n[len(parts)-1] >= 1<<rest {
		return netip.Addr{}, errNotIPv4
	}
	v = v<<rest | n[len(parts)-1]
	if v > math.MaxUint32 {
		return netip.Addr{}, errNotIPv4
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// ipv4Number reads one part of an IPv4 address: hexadecimal after 0x (an
// empty rest is 0), octal after a leading 0, decimal otherwise.
func ipv4Number(s string) (uint64, bool) {
	digits, base := ipv4Base(s)
	if digits == "" {
		// Only "0x" has no digits and is a number.
		return 0, base == 16
	}
	if strings.ContainsAny(digits, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		// Too large for 64 bits is still a number, and still no address.
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return math.MaxUint64, true
		}
		return 0, false
	}
	return v, true
}

// ipv4Base splits one part of an IPv4 address into its digits and their
// base: 16 after 0x, 8 after a leading 0, else 10.
func ipv4Base(s string) (digits string, base int) {
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		return s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		return s[1:], 8
	}
	return s, 10
}

// foldWidth maps full-width ASCII (U+FF01..U+FF5E) to ASCII and the
// ideographic and full-width full stops to ".", as browsers do before they
// read a host.
func foldWidth(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xff01 && r <= 0xff5e:
			return r - 0xfee0
		case r == 0x3002 || r == 0xff61:
			return '.'
		}
		return r
	}, s)
}

// ipWarnings are the warnings about a host that is an IP address, however
// it is written: a raw address other than this machine's, an IPv4 address
// written as IPv6, an IPv4 address in any spelling but the usual dotted
// one (which hides where the link goes, loopback included), and a host
// that ends in a number but is no address. isIP is false for names.
func ipWarnings(host string) (warnings []Warning, isIP bool) {
	warn := func(format string, args ...any) {
		warnings = append(warnings, Warning{Code: IPAddress, Message: fmt.Sprintf(format, args...)})
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		switch {
		case ip.Is4In6():
			warn("the host %s is the IPv4 address %s written as IPv6", host, ip.Unmap())
		case !ip.IsLoopback():
			warn("the host is the raw IP address %s, not a name", ip)
		}
		return warnings, true
	}
	addr, numeric, err := browserIPv4(host)
	switch {
	case !numeric:
		return nil, false
	case err != nil:
		warn("the host %q ends in a number but is no valid IP address; browsers refuse the link", host)
	default:
		warn("the host %q is the IP address %s written in an unusual form; a browser goes to %s", host, addr, addr)
	}
	return warnings, true
}
