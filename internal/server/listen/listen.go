// Package listen opens the listener of a server run over HTTP (mcp-tester
// proxy, the fixtures) and tells whoever started it (a test, a script)
// where it listens.
package listen

import (
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
	if file == "" {
		return ln, nil
	}
	if err := outfile.Write(file, []byte(ln.Addr().String()+"\n"), 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
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
