// Package listen opens the listener of a server run over HTTP (mcp-tester
// proxy, the fixtures) and tells whoever started it (a test, a script)
// where it listens.
package listen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/platform/outfile"
)

// Announce listens on addr and, when file is not empty, writes the address
// listened on and a newline to file whole: written beside it, then renamed,
// so that a test waiting for the file never reads half an address (and one
// that waits for the newline, as scaleout.StartInstance does, finds it).
func Announce(addr, file string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := Tell(ln, file); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// Tell writes the address ln listens on and a newline to file whole, as
// Announce does (nothing when file is empty): for a server that listens
// first and says where only once all it serves is ready.
func Tell(ln net.Listener, file string) error {
	if file == "" {
		return nil
	}
	return outfile.Write(file, []byte(ln.Addr().String()+"\n"), 0o600)
}

// FreePort returns a loopback port free now and unlikely to be taken
// before the server it is meant for binds it, which may be a while later
// (a document's commands, a restarted redis-server): one below the range
// the system hands out for ports asked as ":0" and for outgoing
// connections, which every other test on the machine draws from. Where no
// such port is found, one the system hands out.
func FreePort() (int, error) {
	lo := 32768 // the usual start of the range, when the system does not say
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				lo = n
			}
		}
	}
	const from = 10000
	for range 64 {
		if lo <= from+1000 {
			break
		}
		port := from + rand.IntN(lo-from)
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		ln.Close()
		return port, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// CheckAddr checks an address to listen on (HOST:PORT, as net.Listen
// takes it; an empty HOST is every address of the machine) before
// anything listens, and says what is wrong with it: no ':' before the
// port, no port, a port that is not a TCP port (0 to 65535; 0 picks a free
// one), or a space or control character in it. The error holds no part of
// the address but the port, so that the caller names the address as its
// flag shows it. Whether the address is this machine's, free and allowed
// is for net.Listen to say.
func CheckAddr(addr string) error {
	for i, r := range addr {
		if r == ' ' || r < 0x20 || r == 0x7f {
			return fmt.Errorf("it holds %s at byte %d: give HOST:PORT, e.g. 127.0.0.1:8080", describeRune(r), i+1)
		}
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("give HOST:PORT, e.g. 127.0.0.1:8080 (:0 picks a free port): %s", splitReason(err))
	}
	if port == "" {
		return errors.New("the port after the ':' is missing: give one (0 picks a free port)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || port[0] == '+' || port[0] == '-' {
		return fmt.Errorf("port %s is no TCP port (0 to 65535; 0 picks a free one)", port)
	}
	return nil
}

// splitReason is why net.SplitHostPort refused an address, without the
// address it repeats.
func splitReason(err error) string {
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return ae.Err
	}
	return err.Error()
}

// describeRune names a space or control character as a person reads it.
func describeRune(r rune) string {
	if r == ' ' {
		return "a space"
	}
	return fmt.Sprintf("a control character (U+%04X)", r)
}

// CheckFlag is CheckAddr for the address a command-line flag (flag: "-http")
// gives a server: its error names the flag and the address as written
// (Shown), then what is wrong, e.g. `-http 8080: give HOST:PORT, …`.
func CheckFlag(flag, addr string) error {
	if err := CheckAddr(addr); err != nil {
		return fmt.Errorf("%s %s: %w", flag, Shown(addr), err)
	}
	return nil
}

// Shown is an address as an error shows it: quoted when it is empty or
// holds a space or control character, as written otherwise.
func Shown(addr string) string {
	if addr == "" || strings.ContainsFunc(addr, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return strconv.Quote(addr)
	}
	return addr
}
