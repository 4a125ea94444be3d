//go:build unix

package target

import "os/exec"

// shellCommand runs line with /bin/sh, a simple command under exec (see
// shellLine).
func shellCommand(line string) *exec.Cmd {
	return exec.Command("/bin/sh", "-c", shellLine(line))
}
