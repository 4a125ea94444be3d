package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/replay"
	replayredis "github.com/askback/askback/replay/redisstore"
	"github.com/askback/askback/tasks"
	taskredis "github.com/askback/askback/tasks/redisstore"
	"github.com/redis/go-redis/v9"
)

// deployFlags choose where the deployer keeps what several instances must
// share, and how an HTTP instance announces itself.
type deployFlags struct {
	// redisURL, from -redis or DEPLOY_REDIS_URL, puts the replay store and
	// the task records in Redis; empty keeps them in this process's memory
	// (one instance).
	redisURL string
	// addrFile receives the address listened on (with -http).
	addrFile string
	// debugStats serves heap and goroutine counts at /debug/stats (with
	// -http), for the benchmarks.
	debugStats bool
	// http bounds connections and bodies in flight, and names the proxy
	// trusted to name clients (with -http).
	http *httpserve.Flags
	// sessions bound the 2025-11-25 sessions (with -http).
	sessions endpoint.Options
	// maxStates bounds the single-use states remembered at once (the
	// replay store's MaxEntries); one caller may hold a sixteenth.
	maxStates int
}

// registerDeployFlags adds -redis, -addr-file, -debug-stats, the HTTP
// bounds (httpserve.RegisterFlags) and the bounds of the sessions to fs.
func registerDeployFlags(fs *flag.FlagSet) *deployFlags {
	f := &deployFlags{}
	fs.StringVar(&f.redisURL, "redis", "", "keep single-use requestState nonces and task records in Redis at this URL (redis://HOST:PORT/DB), so that several instances can serve one conversation (default: env DEPLOY_REDIS_URL, else memory)")
	fs.StringVar(&f.addrFile, "addr-file", "", "with -http: write the address listened on to this file")
	fs.BoolVar(&f.debugStats, "debug-stats", false, "with -http: serve heap and goroutine counts at /debug/stats (for benchmarks)")
	f.http = httpserve.RegisterFlags(fs)
	fs.IntVar(&f.maxStates, "max-states", replay.DefaultMaxEntries, "single-use requestStates remembered at once (until they expire), at most; one caller (a user, or a client address) may hold a sixteenth of them")
	fs.IntVar(&f.sessions.MaxSessions, "max-sessions", endpoint.DefaultMaxSessions, "with -http: 2025-11-25 sessions open at once, at most, a tenth kept for clients holding none; when the rest are taken, a newcomer takes the place of a session of the client holding the most (an idle one first), else is answered 503 at once")
	fs.IntVar(&f.sessions.MaxSessionsPerUser, "max-sessions-per-caller", endpoint.DefaultMaxSessionsPerUser, "with -http: 2025-11-25 sessions of one caller (a user, or a client address) open at once, at most")
	fs.DurationVar(&f.sessions.SessionTimeout, "session-timeout", endpoint.DefaultSessionTimeout, "with -http: close a 2025-11-25 session idle for this long")
	fs.DurationVar(&f.sessions.QuestionTimeout, "question-timeout", endpoint.DefaultQuestionTimeout, "with -http: a question asked with elicitation/create waits this long for its answer, at most")
	return f
}

// redis returns the Redis URL of -redis, else of DEPLOY_REDIS_URL ("" for
// none: one instance, stores in memory).
func (f *deployFlags) redis() string {
	if f != nil && f.redisURL != "" {
		return f.redisURL
	}
	return os.Getenv("DEPLOY_REDIS_URL")
}

// stores are the deployer's replay store and task options.
type stores struct {
	replay replay.Store
	tasks  *tasks.Options
	close  func() error
}

// redisHeartbeat is how often a running task refreshes its record in Redis
// and so how soon it sees an answer that reached another instance; a task
// whose heartbeat is older than three of these is failed as interrupted.
const redisHeartbeat = time.Second

// openStores builds the stores: memory by default, Redis when f (or the
// environment) names a URL. It checks that Redis answers.
func openStores(ctx context.Context, f *deployFlags) (*stores, error) {
	url := f.redis()
	// No authentication: every caller is anonymous, and the stores count
	// each by its client address (subject.Share; the HTTP layer names the
	// client on each request): one client may hold a sixteenth of the
	// single-use states (replay.DefaultMaxPerUser) and 16 unfinished tasks
	// (tasks.DefaultMaxTasksPerUser) of 256, so that it cannot take the
	// others' places.
	maxStates := replay.DefaultMaxEntries
	if f != nil && f.maxStates > 0 {
		maxStates = f.maxStates
	}
	if url == "" {
		return &stores{
			replay: replay.NewMemory(&replay.MemoryOptions{MaxEntries: maxStates}),
			tasks:  &tasks.Options{PollInterval: 500 * time.Millisecond},
			close:  func() error { return nil },
		}, nil
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("-redis %q: %w (use redis://HOST:PORT/DB)", url, err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	opts.PoolTimeout = 3 * time.Second
	opts.MaxRetries = 1
	rdb := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %w; start it or fix -redis / DEPLOY_REDIS_URL", opts.Addr, err)
	}
	return &stores{
		replay: replayredis.New(rdb, &replayredis.Options{Prefix: "deployer:replay:", MaxEntries: maxStates}),
		tasks: &tasks.Options{
			Store:        taskredis.New(rdb, &taskredis.Options{Prefix: "deployer:task:"}),
			PollInterval: 500 * time.Millisecond,
			Heartbeat:    redisHeartbeat,
		},
		close: rdb.Close,
	}, nil
}

// listenAndServe serves hs on its address, writing the address actually
// listened on to -addr-file.
func listenAndServe(hs *http.Server, f *deployFlags) error {
	ln, err := net.Listen("tcp", hs.Addr)
	if err != nil {
		return err
	}
	if f != nil && f.addrFile != "" {
		if err := os.WriteFile(f.addrFile, []byte(ln.Addr().String()+"\n"), 0o600); err != nil {
			ln.Close()
			return fmt.Errorf("-addr-file: %w", err)
		}
	}
	return hs.Serve(ln)
}
