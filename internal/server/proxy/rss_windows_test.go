//go:build windows

package proxy

import "os"

// maxRSS is 0 on Windows: the process's peak working set is not read.
func maxRSS(st *os.ProcessState) int64 { return 0 }
