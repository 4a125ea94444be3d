//go:build unix

package cpuuse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Self returns the CPU time (user and system) this process has used so far.
func Self() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("read this process's CPU time: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// userHZ is the unit of the times in /proc/PID/stat: fixed at 100 per second
// by the kernel for every architecture, whatever the scheduler's tick.
const userHZ = 100

// Of returns the CPU time (user and system, of all its threads, also those
// that ended) process pid has used so far, read from /proc/PID/stat in
// hundredths of a second.
func Of(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields to read follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("read the CPU time of process %d: /proc/%d/stat is not in the expected form", pid, pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("read the CPU time of process %d: /proc/%d/stat has too few fields", pid, pid)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// Allowed returns the cores process pid may run on (its CPU affinity), read
// from /proc/PID/status; pid 0 means this process.
func Allowed(pid int) (Cores, error) {
	name := "/proc/self/status"
	if pid != 0 {
		name = fmt.Sprintf("/proc/%d/status", pid)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read the cores a process may run on: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			return ParseList(strings.TrimSpace(v))
		}
	}
	return nil, fmt.Errorf("read the cores a process may run on: %s has no Cpus_allowed_list", name)
}

// Listener returns the process that listens on the loopback TCP port, if
// this user may see it: it finds the listening socket in /proc/net/tcp and
// tcp6, then the process that holds it among /proc/*/fd. ok is false when
// none is found.
func Listener(port int) (pid int, ok bool) {
	inodes := map[string]bool{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st ... inode (field 10)
			if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0, false
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	// This process first: a test's server often runs in it.
	procs = append([]string{fmt.Sprintf("/proc/%d", os.Getpid())}, procs...)
	for _, p := range procs {
		fds, err := os.ReadDir(filepath.Join(p, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if err == nil && inodes[link] {
				n, err := strconv.Atoi(filepath.Base(p))
				return n, err == nil
			}
		}
	}
	return 0, false
}
