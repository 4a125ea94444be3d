package endpoint

// Busy returns how many of user's sessions have a request in progress.
func (h *Handler) Busy(user string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.sessions {
		if s.user == user && s.busy > 0 {
			n++
		}
	}
	return n
}

// BusyShare returns how many sessions of the caller share (subject.Share)
// have a request in progress.
func (h *Handler) BusyShare(share string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.sessions {
		if s.share == share && s.busy > 0 {
			n++
		}
	}
	return n
}

// Deleting reports whether the session id's DELETE is being served.
func (h *Handler) Deleting(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[id]
	return s != nil && s.deleting
}
