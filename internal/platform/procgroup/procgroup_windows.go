//go:build windows

package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Isolate starts cmd in a console process group of its own (keeping the
// rest of its SysProcAttr): an interrupt typed at the terminal reaches the
// tester, not the server, as on Unix.
func Isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// Terminate ends the process pid and the processes it started, as Kill
// does: Windows has no request to end a console process that another
// program can send.
func Terminate(pid int) error {
	return Kill(pid)
}

// Kill terminates the process pid and every process it started, directly
// or not, that is still running. The processes are found in one snapshot
// of the system's processes by their parent ids; a process is taken for a
// child only when it was created after its parent, so that a process whose
// parent has ended and whose id was reused is left alone.
func Kill(pid int) error {
	tree, err := descendants(uint32(pid))
	if err != nil {
		tree = nil // still end the process itself
	}
	err = terminate(uint32(pid))
	for _, child := range tree {
		_ = terminate(child)
	}
	return err
}

// terminate ends the process pid.
func terminate(pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("end process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil {
		return fmt.Errorf("end process %d: %w", pid, err)
	}
	return nil
}

// descendants returns the processes root started, directly or not, parents
// before their children.
func descendants(root uint32) ([]uint32, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("list the processes: %w", err)
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID != e.ParentProcessID {
			children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
		}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("list the processes: %w", err)
	}
	var out []uint32
	seen := map[uint32]bool{root: true}
	queue := []uint32{root}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		born, ok := created(parent)
		if !ok {
			continue
		}
		for _, c := range children[parent] {
			if seen[c] {
				continue
			}
			if t, ok := created(c); !ok || t < born {
				continue
			}
			seen[c] = true
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out, nil
}

// created returns when process pid was created, in 100-nanosecond
// intervals since 1601; ok is false when it cannot be read.
func created(pid uint32) (int64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var c, x, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &x, &k, &u); err != nil {
		return 0, false
	}
	return int64(c.HighDateTime)<<32 | int64(c.LowDateTime), true
}
