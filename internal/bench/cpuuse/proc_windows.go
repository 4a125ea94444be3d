//go:build windows

package cpuuse

import (
	"fmt"
	"math/bits"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Self returns the CPU time (user and system) this process has used so far,
// as GetProcessTimes counts it.
func Self() (time.Duration, error) {
	h, err := windows.GetCurrentProcess()
	if err != nil {
		return 0, fmt.Errorf("read this process's CPU time: %w", err)
	}
	d, err := processTime(h)
	if err != nil {
		return 0, fmt.Errorf("read this process's CPU time: %w", err)
	}
	return d, nil
}

// Of returns the CPU time (user and system, of all its threads, also those
// that ended) process pid has used so far, as GetProcessTimes counts it.
func Of(pid int) (time.Duration, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	d, err := processTime(h)
	if err != nil {
		return 0, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	return d, nil
}

// processTime is the user and kernel time of process h.
func processTime(h windows.Handle) (time.Duration, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	// Both are counts of 100-nanosecond intervals.
	return time.Duration(ticks(kernel)+ticks(user)) * 100, nil
}

func ticks(f windows.Filetime) int64 {
	return int64(f.HighDateTime)<<32 | int64(f.LowDateTime)
}

// getProcessAffinityMask is kernel32's GetProcessAffinityMask, which
// golang.org/x/sys/windows does not wrap.
var getProcessAffinityMask = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetProcessAffinityMask")

// Allowed returns the cores process pid may run on (its affinity mask, in
// the processor group it runs in); pid 0 means this process.
func Allowed(pid int) (Cores, error) {
	h, err := windows.GetCurrentProcess()
	if pid != 0 {
		h, err = windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
		if err == nil {
			defer windows.CloseHandle(h)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the cores a process may run on: %w", err)
	}
	if err := getProcessAffinityMask.Find(); err != nil {
		return nil, fmt.Errorf("read the cores a process may run on: not measured on this system: %w", err)
	}
	var mask, system uintptr
	ok, _, callErr := getProcessAffinityMask.Call(uintptr(h), uintptr(unsafe.Pointer(&mask)), uintptr(unsafe.Pointer(&system)))
	if ok == 0 {
		return nil, fmt.Errorf("read the cores a process may run on: %w", callErr)
	}
	c := Cores{}
	for m := uint64(mask); m != 0; m &= m - 1 {
		c[bits.TrailingZeros64(m)] = true
	}
	return c, nil
}

// Listener returns the process that listens on the loopback TCP port. It is
// not looked for on Windows: ok is always false, and the caller assumes the
// worst (that the process shares this one's cores).
func Listener(port int) (pid int, ok bool) {
	return 0, false
}
