package cli

import (
	"errors"
	"net"
)

// listenFailed is the error of a command that serves (serve, proxy, ui)
// when it cannot listen where --listen (or --addr-file) says: the address is
// taken, not this machine's, or not allowed. The flag's value is what failed
// and nothing was served, so it is a usage error (exit 2), whichever command.
func listenFailed(addr, addrFile string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return usageErr("--listen %s: %v: nothing was served", addr, op.Err)
	}
	if addrFile != "" {
		return usageErr("--addr-file %s: %v: nothing was served", addrFile, err)
	}
	return usageErr("--listen %s: %v: nothing was served", addr, err)
}
