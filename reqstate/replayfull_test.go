package reqstate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// With the replay store full of live nonces, a single-use state cannot be
// opened: the client gets the internal error (try again later), the state is
// not consumed, and it opens once the store has room.
func TestFullReplayStoreFailsClosed(t *testing.T) {
	clk := newClock()
	store := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 1, Now: clk.Now})
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Now: clk.Now, Replay: store})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{codec: codec, clock: clk, store: store}
	s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
	if err := store.Claim(t.Context(), "someone-else", clk.t.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err = open(f, toolReq("alice", "deploy", args, s))
	if !errors.Is(err, replay.ErrFull) || reqstate.IsRefusal(err) {
		t.Fatalf("Open with a full store = %v, want ErrFull and no refusal", err)
	}
	var je *jsonrpc.Error
	if !errors.As(reqstate.ClientError(err), &je) || je.Code != jsonrpc.CodeInternalError {
		t.Fatalf("ClientError = %v, want an internal error", reqstate.ClientError(err))
	}
	if store.FullRefusals() != 1 {
		t.Errorf("FullRefusals = %d, want 1", store.FullRefusals())
	}
	clk.t = clk.t.Add(2 * time.Minute) // the other nonce expires; the state (10 min) does not
	if _, err := open(f, toolReq("alice", "deploy", args, s)); err != nil {
		t.Fatalf("Open once the store has room: %v", err)
	}
}

// One user who opens as many single-use states as the store holds cannot
// fill it for everyone: the states are claimed for their user, so that
// user's next one is refused (an internal error, not consumed) while
// another user's and an anonymous caller's still open, and hers opens once
// her earlier ones expire.
func TestOneUserCannotFillTheReplayStore(t *testing.T) {
	clk := newClock()
	store := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 8, MaxPerUser: 2, Now: clk.Now})
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Now: clk.Now, Replay: store})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{codec: codec, clock: clk, store: store}
	single := &reqstate.IssueOptions{SingleUse: true}
	mallory := make([]string, 5)
	for i := range mallory {
		mallory[i] = issue(t, f, toolReq("mallory", "deploy", args, ""), single)
	}
	for _, s := range mallory[:2] {
		if _, err := open(f, toolReq("mallory", "deploy", args, s)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range mallory[2:] {
		_, err := open(f, toolReq("mallory", "deploy", args, s))
		if !errors.Is(err, replay.ErrUserFull) || reqstate.IsRefusal(err) {
			t.Fatalf("Open beyond the user's share = %v, want ErrUserFull and no refusal", err)
		}
	}
	for _, user := range []string{"alice", "bob", ""} {
		s := issue(t, f, toolReq(user, "deploy", args, ""), single)
		if _, err := open(f, toolReq(user, "deploy", args, s)); err != nil {
			t.Fatalf("Open by %q while mallory is at her share: %v", user, err)
		}
	}
	clk.t = clk.t.Add(5 * time.Minute) // mallory's states (10 min) still live
	s := issue(t, f, toolReq("mallory", "deploy", args, ""), single)
	clk.t = clk.t.Add(6 * time.Minute) // her first two expired, the last not
	if _, err := open(f, toolReq("mallory", "deploy", args, s)); err != nil {
		t.Fatalf("Open once her earlier states expired: %v", err)
	}
}

// Anonymous callers each have their share too: one client that opens as
// many single-use states as it may is refused its next, while another
// client, and a user, still open theirs. The client is the one the request's
// context names (the HTTP layer names it).
func TestOneAnonymousClientCannotFillTheReplayStore(t *testing.T) {
	clk := newClock()
	store := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 8, MaxPerUser: 2, Now: clk.Now})
	anonymousShares(t, store, clk)
}

// anonymousShares fills one anonymous client's share of store and checks
// that the others are not affected.
func anonymousShares(t *testing.T, store replay.Store, clk *clock) {
	t.Helper()
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, Now: clk.Now, Replay: store})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{codec: codec, clock: clk}
	single := &reqstate.IssueOptions{SingleUse: true}
	from := func(client string) context.Context {
		return subject.WithClient(context.Background(), client)
	}
	openFrom := func(client string, s string) error {
		_, err := reqstate.Open[deployState](from(client), f.codec, toolReq("", "deploy", args, s))
		return err
	}
	for i := range 3 {
		s := issue(t, f, toolReq("", "deploy", args, ""), single)
		err := openFrom("addr:192.0.2.1", s)
		switch {
		case i < 2 && err != nil:
			t.Fatalf("client 192.0.2.1's state %d: %v", i, err)
		case i == 2 && (!errors.Is(err, replay.ErrUserFull) || reqstate.IsRefusal(err)):
			t.Fatalf("client 192.0.2.1's state beyond its share: %v, want ErrUserFull", err)
		}
	}
	s := issue(t, f, toolReq("", "deploy", args, ""), single)
	if err := openFrom("addr:192.0.2.2", s); err != nil {
		t.Fatalf("another client's state while the first is at its share: %v", err)
	}
	s = issue(t, f, toolReq("alice", "deploy", args, ""), single)
	if _, err := reqstate.Open[deployState](from("addr:192.0.2.1"), f.codec, toolReq("alice", "deploy", args, s)); err != nil {
		t.Fatalf("a user's state from the same address: %v", err)
	}
}
