//go:build windows

package target

import (
	"os"
	"os/exec"
	"syscall"
)

// shellCommand runs line with the command interpreter (%ComSpec%, cmd.exe
// when unset) as cmd /C runs it: /D skips the AutoRun commands of the
// registry, and /S with the line in quotes hands cmd.exe the line exactly
// as written (cmd.exe parses its command line itself, so the line is not
// quoted as a program's argument would be).
func shellCommand(line string) *exec.Cmd {
	shell := os.Getenv("ComSpec")
	if shell == "" {
		shell = "cmd.exe"
	}
	cmd := exec.Command(shell)
	// CmdLine is the whole command line, the program's name first.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: syscall.EscapeArg(shell) + ` /D /S /C "` + line + `"`}
	return cmd
}
