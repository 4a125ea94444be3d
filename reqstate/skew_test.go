package reqstate_test

import (
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/replay/redisstore"
	"github.com/askback/askback/reqstate"
)

// instance is one server of several: its own clock (base, off by skew),
// its own Redis client, the shared key and Redis.
func instance(t *testing.T, redisURL string, base time.Time, skew, maxSkew, ttl time.Duration) *fixture {
	t.Helper()
	now := func() time.Time { return base.Add(skew) }
	store := redisstore.New(scaleout.Client(t, redisURL), &redisstore.Options{Now: now})
	c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Replay: store, Now: now, TTL: ttl, MaxSkew: maxSkew})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{codec: c}
}

// The attack: an instance 2 s ahead claims the nonce of a 3-second state for
// "expiry minus my clock" (1 s); 1.2 s later an instance with the right clock
// still took the state for live and accepted it again. The claim is now held
// for the state's life plus the allowed skew.
//
// The instances' clocks stand still, so the state is live for the right one
// however long a busy machine takes; Redis's does not: the sleep lets a claim
// held for 1 s expire, and the allowed skew (a minute) keeps the claim held
// now long after it.
func TestSingleUseHoldsAcrossSkewedInstances(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	base := time.Now()
	ahead := instance(t, r.URL, base, 2*time.Second, time.Minute, 3*time.Second)
	right := instance(t, r.URL, base, 0, time.Minute, 3*time.Second)
	req := toolReq("alice", "deploy", args, "")
	s, err := right.codec.Issue(req, want, &reqstate.IssueOptions{SingleUse: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open(ahead, toolReq("alice", "deploy", args, s)); err != nil {
		t.Fatalf("first use through the instance 2 s ahead: %v", err)
	}
	time.Sleep(1200 * time.Millisecond)
	_, err = open(right, toolReq("alice", "deploy", args, s))
	mustRefuse(t, err, reqstate.ErrReused, "second use through the instance with the right clock, 1.2 s later")
}

// A clock off by more than the allowed skew cannot stretch a state's life: a
// state from an instance 30 min ahead, or opened by one 30 min behind, is
// refused; within the skew it opens.
func TestRefusesStatesBeyondTheSkew(t *testing.T) {
	base := newClock().t
	codecAt := func(off time.Duration) *fixture {
		clk := &clock{t: base.Add(off)}
		c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Now: clk.Now, TTL: time.Minute,
			MaxSkew: 5 * time.Second, Replay: replay.NewMemory(&replay.MemoryOptions{Now: clk.Now})})
		if err != nil {
			t.Fatal(err)
		}
		return &fixture{codec: c, clock: clk}
	}
	right, ahead, behind, slightly := codecAt(0), codecAt(30*time.Minute), codecAt(-30*time.Minute), codecAt(-4*time.Second)
	for _, c := range []struct {
		name         string
		issuer, user *fixture
		want         error
	}{
		{"issued 30 min ahead, opened on time", ahead, right, reqstate.ErrClockSkew},
		{"issued on time, opened 30 min behind", right, behind, reqstate.ErrClockSkew},
		{"issued on time, opened 4 s behind", right, slightly, nil},
	} {
		s := issue(t, c.issuer, toolReq("alice", "deploy", args, ""))
		_, err := open(c.user, toolReq("alice", "deploy", args, s))
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		mustRefuse(t, err, c.want, c.name)
	}
	// One state cannot be given a longer life than Options.TTL.
	if _, err := right.codec.Issue(toolReq("alice", "deploy", args, ""), want, &reqstate.IssueOptions{TTL: time.Hour}); err == nil {
		t.Error("Issue with TTL(1h) above Options.TTL (1 min) succeeded")
	}
}

func TestNewRefusesNegativeSkew(t *testing.T) {
	_, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, MaxSkew: -time.Second})
	if err == nil {
		t.Fatalf("New with a negative MaxSkew = %v, want an error", err)
	}
}
