package scaleout

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/listen"
	"github.com/redis/go-redis/v9"
)

// RedisOptions configure [StartRedis].
type RedisOptions struct {
	// Persist turns on the append-only file with an fsync after every
	// write, in a temporary directory, so that a killed and restarted
	// server keeps every write it acknowledged.
	Persist bool
}

// Redis is a redis-server process owned by a test.
type Redis struct {
	// Port is the loopback port it listens on; it stays the same across
	// restarts.
	Port int
	// Addr is "127.0.0.1:Port".
	Addr string
	// URL is the redis:// URL of database 0.
	URL string

	tb   testing.TB
	dir  string
	opts RedisOptions
	cmd  *exec.Cmd
	done chan struct{}
}

// RedisBinary returns the path of redis-server, or "" when it is not
// installed.
func RedisBinary() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// NeedRedis skips tb when redis-server is missing and the environment
// variable CI is unset; under CI a missing redis-server fails the test
// (scripts/ensure-redis.sh installs it).
func NeedRedis(tb testing.TB) string {
	tb.Helper()
	p := RedisBinary()
	if p != "" {
		return p
	}
	if os.Getenv("CI") != "" {
		tb.Fatal("redis-server is not installed; run scripts/ensure-redis.sh (make setup)")
	}
	tb.Skip("redis-server is not installed (run scripts/ensure-redis.sh); skipping")
	return ""
}

// StartRedis starts a redis-server on a free loopback port and stops it
// when the test ends. It skips the test when redis-server is missing
// outside CI (see [NeedRedis]).
func StartRedis(tb testing.TB, opts *RedisOptions) *Redis {
	tb.Helper()
	NeedRedis(tb)
	r := &Redis{tb: tb, dir: tb.TempDir()}
	if opts != nil {
		r.opts = *opts
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		r.Port, err = FreePort()
		if err != nil {
			tb.Fatal(err)
		}
		r.Addr = "127.0.0.1:" + strconv.Itoa(r.Port)
		r.URL = "redis://" + r.Addr + "/0"
		if err = r.start(); err == nil {
			break
		}
	}
	if err != nil {
		tb.Fatalf("start redis-server: %v", err)
	}
	tb.Cleanup(r.Stop)
	return r
}

// start runs redis-server on r.Port and waits until it answers PING.
func (r *Redis) start() error {
	args := []string{
		"--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1",
		"--save", "", "--dir", r.dir, "--daemonize", "no",
		"--protected-mode", "yes", "--loglevel", "warning",
	}
	if r.opts.Persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	cmd := exec.Command(RedisBinary(), args...)
	logf, err := os.OpenFile(filepath.Join(r.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	r.cmd, r.done = cmd, done
	// Bounds only a failure reaches: a busy machine may take seconds to
	// start the server and to answer a PING.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			return fmt.Errorf("redis-server exited at once: %s", strings.TrimSpace(lastLines(string(b), 5)))
		default:
		}
		if Ping(r.Addr, 10*time.Second) == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.signal(syscall.SIGKILL)
	return errors.New("redis-server did not answer PING within a minute")
}

// Ping sends PING to the Redis server at addr and checks for PONG.
func Ping(addr string, timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func (r *Redis) signal(sig syscall.Signal) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	end(r.cmd, r.done, sig)
	r.cmd = nil
}

// Stop shuts the server down (SIGTERM) and waits for it to exit. Stopping
// a stopped server does nothing.
func (r *Redis) Stop() { r.signal(syscall.SIGTERM) }

// Kill ends the server with SIGKILL: no shutdown save, as in a crash.
func (r *Redis) Kill() { r.signal(syscall.SIGKILL) }

// Restart starts the server again on the same port, with the same data
// directory (so a persistent server comes back with its data).
func (r *Redis) Restart() {
	r.tb.Helper()
	r.Stop()
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if err = r.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond) // the port may linger a moment
	}
	r.tb.Fatalf("restart redis-server on port %d: %v", r.Port, err)
}

// FreePort returns a loopback TCP port that was free a moment ago, one
// the system does not hand out to other processes' connections meanwhile
// (listen.FreePort).
func FreePort() (int, error) {
	port, err := listen.FreePort()
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Client returns a go-redis client for url, closed when the test ends. Its
// time limits only end a hang: a server that is down refuses a connection
// at once, and one that is up may take seconds to answer on a busy machine.
func Client(tb testing.TB, url string) *redis.Client {
	tb.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatal(err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 30*time.Second, 30*time.Second, 30*time.Second
	opts.MaxRetries = 1
	rdb := redis.NewClient(opts)
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}
