package cli

import (
	"errors"
	"net"

	"github.com/askback/askback/internal/server/listen"
)

// checkListenAddr checks the address a listen flag (flag: "--listen")
// names, before anything listens: one check (listen.CheckAddr) and one
// wording for every command that serves (serve, proxy, ui), the wording
// of listenFailed. What is wrong is a usage error (exit 2).
func checkListenAddr(flag, addr string) error {
	if err := listen.CheckAddr(addr); err != nil {
		return usageErr("%s %s: %v: nothing was served", flag, shownAddr(addr), err)
	}
	return nil
}

// shownAddr is addr as an error shows it (listen.Shown).
func shownAddr(addr string) string { return listen.Shown(addr) }

// listenFailed is the error of a command that serves (serve, proxy, ui)
// when it cannot listen where --listen (or --addr-file) says: the address is
// taken, not this machine's, or not allowed. The flag's value is what failed
// and nothing was served, so it is a usage error (exit 2), whichever command.
func listenFailed(addr, addrFile string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return usageErr("--listen %s: %v: nothing was served", shownAddr(addr), op.Err)
	}
	if addrFile != "" {
		return usageErr("--addr-file %s: %v: nothing was served", addrFile, err)
	}
	return usageErr("--listen %s: %v: nothing was served", shownAddr(addr), err)
}
