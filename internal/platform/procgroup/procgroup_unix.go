//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Isolate makes cmd, once started, the leader of a process group of its own
// (keeping the rest of its SysProcAttr).
func Isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Terminate asks the process group that pid leads to end (SIGTERM).
func Terminate(pid int) error {
	return syscall.Kill(-pid, syscall.SIGTERM)
}

// Kill ends the process group that pid leads (SIGKILL).
func Kill(pid int) error {
	return syscall.Kill(-pid, syscall.SIGKILL)
}
