package scaleout_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Redis killed mid-run (a crash: SIGKILL, persistence on with an fsync on
// every write) and restarted on the same port:
//   - while it is down, round 2 and tasks/get fail with a clear error from
//     the server, which does not wait for Redis to come back, and the
//     instances keep running;
//   - the answer a tasks/update accepted just before the crash is not lost:
//     the task completes once Redis is back;
//   - the round 2 refused during the outage consumed nothing: the same
//     state passes once Redis is back, and is single use again after.
func TestRedisDownAndBack(t *testing.T) {
	t.Parallel()
	r := scaleout.StartRedis(t, &scaleout.RedisOptions{Persist: true})
	c := newCluster(t, 2, r.URL)
	cl := dial(t, c.url)

	c.proxy.Pin(0)
	state := cl.round1(t)
	id := startRollout(t, cl)
	c.proxy.Pin(1)
	waitStatus(t, cl, id, tasks.StatusInputRequired, 2*time.Minute)
	if err := cl.tasks.Update(ctxT(t, time.Minute), id, goOn); err != nil {
		t.Fatal(err)
	}
	r.Kill()

	// Both answers come while Redis is still down (it restarts only after
	// them), each from the server, not from the client's bound: the server
	// failed without waiting for Redis to come back.
	_, err := cl.round2(ctxT(t, time.Minute), state)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "try again later") {
		t.Errorf("round 2 with Redis down: %v, want an internal error that says to try again later", err)
	}
	if _, err := cl.tasks.Get(ctxT(t, time.Minute), id); err == nil || !strings.Contains(err.Error(), "task store") {
		t.Errorf("tasks/get with Redis down: %v, want a task store error", err)
	}
	for _, in := range c.instances {
		if in.Exited() {
			t.Fatalf("instance %s exited while Redis was down: %s", in.Name, in.Output())
		}
	}

	r.Restart()
	got, err := cl.round2(ctxT(t, time.Minute), state)
	if err != nil || got != deployed {
		t.Fatalf("round 2 after Redis came back: %q, %v", got, err)
	}
	if _, err := cl.round2(ctxT(t, time.Minute), state); err == nil {
		t.Error("the state was accepted twice after the restart")
	}
	c.proxy.Pin(0) // the running instance never mistakes its own task for an orphan
	g := waitStatus(t, cl, id, tasks.StatusCompleted, 2*time.Minute)
	if !strings.Contains(string(g.Result), "complete") {
		t.Errorf("result: %s", g.Result)
	}
	for _, in := range c.instances {
		if strings.Contains(in.Output(), "panic") {
			t.Errorf("instance %s panicked: %s", in.Name, in.Output())
		}
	}
}

// An instance cannot start without its Redis, and says what to do.
func TestInstanceWithoutRedisSaysSo(t *testing.T) {
	t.Parallel()
	scaleout.NeedRedis(t)
	port, err := scaleout.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	url := "redis://127.0.0.1:" + itoa(port) + "/0"
	out, err := runDeployer(t, "-redis", url, "-http", "127.0.0.1:0")
	if err == nil || !strings.Contains(out, "cannot reach Redis") || !strings.Contains(out, "start it or fix -redis") {
		t.Errorf("deployer with Redis down: %v\n%s", err, out)
	}
}
