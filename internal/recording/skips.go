package recording

import "fmt"

// Skips gathers what a reader of a recording leaves out, by kind (frames
// that are no JSON-RPC message, the server's notifications of a method),
// so that every reader warns alike: once for each kind, at the line of
// its first, with how many there were. The zero value is empty and ready.
type Skips struct {
	m map[string]*Skip
}

// Skip is one kind of what a reader leaves out.
type Skip struct {
	// What says what it is, in words ("a frame the server sent that is
	// not JSON-RPC (…)"), as the first of its kind showed it.
	What string
	// First and Last are the lines of the first and the last; N counts
	// them.
	First, Last, N int
	// At is where the reader keeps its warning (an index of its own).
	At int
}

// Add counts one of kind at line; what says what it is, when it is the
// first. The Skip's N is 1 for the first of its kind.
func (s *Skips) Add(kind string, line int, what string) *Skip {
	if s.m == nil {
		s.m = map[string]*Skip{}
	}
	sk, ok := s.m[kind]
	if !ok {
		sk = &Skip{What: what, First: line}
		s.m[kind] = sk
	}
	sk.N++
	sk.Last = line
	return sk
}

// Text is the warning of sk: what it is, what the reader does with it
// (done, such as "skipped", when What does not say), and how many there
// were when more than one.
func (sk *Skip) Text(done string) string {
	s := sk.What
	if done != "" {
		s += ": " + done
	}
	if sk.N > 1 {
		s += fmt.Sprintf(" (%d in all, the last at line %d)", sk.N, sk.Last)
	}
	return s
}

// FrameWhat says what a frame that is no JSON-RPC message (an
// EventNotJSON or EventNotRPC entry) is, for the warning of a reader that
// skips it; its kind for Skips.Add is FrameKind.
func FrameWhat(e Entry) string {
	who := "the server"
	if e.Dir == ClientToServer {
		who = "the client"
	}
	return fmt.Sprintf("a frame %s sent that is not JSON-RPC (%s)", who, e.Note)
}

// FrameKind is the kind of a skipped frame (FrameWhat) for Skips.Add.
func FrameKind(e Entry) string { return e.Event + " " + e.Dir }
