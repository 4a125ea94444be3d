package cli

import (
	"errors"
	"net"

	"github.com/askback/askback/internal/server/listen"
)

// checkListenAddr checks the address a listen flag (flag: "--listen")
// names, before anything listens: one check and wording (listen.CheckFlag,
// as the example servers' own flags) for every command that serves (serve,
// proxy, ui), the wording of listenFailed. What is wrong is a usage error
// (exit 2).
func checkListenAddr(flag, addr string) error {
	if err := listen.CheckFlag(flag, addr); err != nil {
		return usageErr("%v: nothing was served", err)
	}
	return nil
}

// listenFailed is the error of a command that serves (serve, proxy, ui)
// when it cannot listen where --listen (or --addr-file) says: the address is
// taken, not this machine's, or not allowed. The flag's value is what failed
// and nothing was served, so it is a usage error (exit 2), whichever command.
func listenFailed(addr, addrFile string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return usageErr("--listen %s: %v: nothing was served", listen.Shown(addr), op.Err)
	}
	if addrFile != "" {
		return usageErr("--addr-file %s: %v: nothing was served", addrFile, err)
	}
	return usageErr("--listen %s: %v: nothing was served", listen.Shown(addr), err)
}
