package procgroup

import "time"

// TermGrace is how long a server asked to end (Terminate) may take to exit
// before it is killed: long, since a server that got the signal is ending,
// and may still be writing what it writes last (a report, a file it
// saves), which a busy machine makes slow; only a server that ignores the
// signal waits it out.
const TermGrace = 10 * time.Second

// Ending says how End ended a process.
type Ending int

// How End ended a process.
const (
	// Exited: it exited of itself within the first grace.
	Exited Ending = iota
	// Terminated: it exited once asked to (Terminate).
	Terminated
	// Killed: it was killed (Kill).
	Killed
)

// String names e.
func (e Ending) String() string {
	switch e {
	case Exited:
		return "exited"
	case Terminated:
		return "terminated"
	case Killed:
		return "killed"
	}
	return "Ending(?)"
}

// End ends the process group that pid leads, a server whose input the
// caller has just closed; exited is closed once the process has exited
// (its Wait has returned). The server gets grace to exit of itself (a
// short wait: servers that keep running at the end of their input are
// common), is then asked to end (Terminate) and given termGrace to do so,
// and is then killed (Kill). End returns once exited is closed, saying
// which of the three ended it.
func End(pid int, exited <-chan struct{}, grace, termGrace time.Duration) Ending {
	if waitFor(exited, grace) {
		return Exited
	}
	// A group that cannot be signalled is killed at once.
	if Terminate(pid) == nil && waitFor(exited, termGrace) {
		return Terminated
	}
	_ = Kill(pid)
	<-exited
	return Killed
}

// waitFor reports whether done is closed within d.
func waitFor(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
