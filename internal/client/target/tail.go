package target

import (
	"errors"
	"io"
	"strings"
	"sync"
)

// tailChunk is the room ReadFrom reads a command's stderr through.
const tailChunk = 2 << 10

// tail keeps the last bytes written to it, cut at a line boundary. Its room
// is allocated once, up to its bound: a server that writes to stderr all
// session long costs no garbage per write.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		p = p[len(p)-t.max:]
		t.buf = t.buf[:0]
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	if t.buf == nil {
		t.buf = make([]byte, 0, t.max)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// ReadFrom keeps the last bytes of r through a small room of its own
// (tailChunk): os/exec copies a command's stderr with it instead of
// through io.Copy's 32 KiB buffer.
func (t *tail) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, tailChunk)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = t.Write(buf[:n])
			total += int64(n)
		}
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// String returns the kept text, without a partial first line when the
// beginning was cut.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) >= t.max {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
