package standin

import (
	"cmp"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Bounds of the tasks a stand-in keeps, of either era.
const (
	// MaxTasks bounds the tasks a stand-in keeps in all; ended ones make
	// room first.
	MaxTasks = 4096
	// MaxTasksPerClient bounds the tasks one client keeps (subject.Share:
	// its address over HTTP; over stdio there is one client), so that one
	// client cannot take every place.
	MaxTasksPerClient = 1024
)

// servedTask is a task a stand-in runs: of protocol 2025-11-25
// (*task2025) or of the tasks extension (*extTask).
type servedTask interface {
	// ended reports whether the task's status is terminal.
	ended() bool
}

// taskTable holds the tasks a stand-in runs, by id, bounded in all
// (max) and per client (perClient). A task that would go beyond a bound
// takes the place of the oldest ended task (the client's own when it is
// the client's bound), or is refused.
type taskTable struct {
	max, perClient int

	mu   sync.Mutex
	byID map[string]*taskEntry
	held map[string]int // tasks kept per client
	seq  uint64
}

type taskEntry struct {
	task   servedTask
	client string
	seq    uint64 // the order tasks were added in
}

func newTaskTable(max, perClient int) *taskTable {
	return &taskTable{max: max, perClient: perClient, byID: map[string]*taskEntry{}, held: map[string]int{}}
}

// add keeps task t of client under id, or says why there is no room.
func (tt *taskTable) add(id, client string, t servedTask) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.held[client] >= tt.perClient && !tt.forgetOldestEnded(func(e *taskEntry) bool { return e.client == client }) {
		return rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: %s of this client running, the most it keeps for one client; let one end", plural(tt.perClient, "task"))
	}
	if len(tt.byID) >= tt.max && !tt.forgetOldestEnded(func(*taskEntry) bool { return true }) {
		return rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: %s running, the most it keeps; let one end", plural(tt.max, "task"))
	}
	tt.seq++
	tt.byID[id] = &taskEntry{task: t, client: client, seq: tt.seq}
	tt.held[client]++
	return nil
}

// forgetOldestEnded forgets the oldest ended task that which accepts,
// and reports whether there was one.
func (tt *taskTable) forgetOldestEnded(which func(*taskEntry) bool) bool {
	oldestID, oldest := "", (*taskEntry)(nil)
	for id, e := range tt.byID {
		if which(e) && e.task.ended() && (oldest == nil || e.seq < oldest.seq) {
			oldestID, oldest = id, e
		}
	}
	if oldest == nil {
		return false
	}
	delete(tt.byID, oldestID)
	if tt.held[oldest.client]--; tt.held[oldest.client] <= 0 {
		delete(tt.held, oldest.client)
	}
	return true
}

// get returns the task id names, or nil.
func (tt *taskTable) get(id string) servedTask {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if e := tt.byID[id]; e != nil {
		return e.task
	}
	return nil
}

// all returns every task kept, in the order they were added.
func (tt *taskTable) all() []servedTask {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	entries := make([]*taskEntry, 0, len(tt.byID))
	for _, e := range tt.byID {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *taskEntry) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]servedTask, len(entries))
	for i, e := range entries {
		out[i] = e.task
	}
	return out
}
