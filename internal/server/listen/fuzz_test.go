package listen

import (
	"net"
	"strconv"
	"testing"
)

// Whatever address a person gives, CheckAddr ends without a panic, and
// what it accepts is a HOST:PORT whose port is a TCP port in digits.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:0", ":8080", "[::1]:9", "h:99999", "h: 1", "h:", "h", "h:+1", "h:-1", "[::1", "\x00:1", "h:٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if CheckAddr(addr) != nil {
			return
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("%q accepted, but it does not split: %v", addr, err)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || port[0] < '0' || port[0] > '9' {
			t.Fatalf("%q accepted with port %q", addr, port)
		}
	})
}
