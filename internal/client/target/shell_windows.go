//go:build windows

package target

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// shellCommand runs line as Windows runs a command line. A simple command
// (words only, none of cmd.exe's operators or quotes) runs as its own
// process, found on the Path, so that ending it ends the server (as exec
// does under /bin/sh). Anything else runs with the command interpreter
// (%ComSpec%, cmd.exe when unset) as cmd /C runs it: /D skips the AutoRun
// commands of the registry, and /S with the line in quotes hands cmd.exe
// the line exactly as written (cmd.exe parses its command line itself, so
// the line is not quoted as a program's argument would be).
func shellCommand(line string) *exec.Cmd {
	if words := strings.Fields(line); len(words) > 0 && !strings.ContainsAny(line, "&|<>^%()\"!\n") {
		return exec.Command(words[0], words[1:]...)
	}
	shell := os.Getenv("ComSpec")
	if shell == "" {
		shell = "cmd.exe"
	}
	cmd := exec.Command(shell)
	// CmdLine is the whole command line, the program's name first.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: syscall.EscapeArg(shell) + ` /D /S /C "` + line + `"`}
	return cmd
}
