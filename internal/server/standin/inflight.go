package standin

import "sync"

// inFlight bounds the requests a stand-in answers at once, in all and per
// client (subject.Share: a client's address over HTTP; every client over
// stdio is one). A quarter of the places is kept for clients holding
// fewer than fewInFlight requests: a newcomer is answered while one client,
// or clients at many addresses each holding a few, hold all the rest, and
// it takes many more addresses again to fill the reserve.
type inFlight struct {
	mu      sync.Mutex
	max     int
	reserve int
	total   int
	by      map[string]int
}

// fewInFlight is the requests in progress a client may hold and still take
// a reserved place.
const fewInFlight = 2

func newInFlight(max int) *inFlight {
	return &inFlight{max: max, reserve: max / 4, by: map[string]int{}}
}

// enter takes a place for a request of client, or reports that there is
// none for it.
func (f *inFlight) enter(client string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.by[client]
	if f.total >= f.max || f.total >= f.max-f.reserve && n >= fewInFlight {
		return false
	}
	f.total++
	f.by[client] = n + 1
	return true
}

// leave gives back a place enter took.
func (f *inFlight) leave(client string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total--
	if f.by[client]--; f.by[client] <= 0 {
		delete(f.by, client)
	}
}
