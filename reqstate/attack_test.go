package reqstate_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const args = `{"service":"auth-service"}`

var want = deployState{Service: "auth-service", Version: "2.4.1"}

// issue issues want for req, with the options if given.
func issue(t *testing.T, f *fixture, req mcp.Request, opts ...*reqstate.IssueOptions) string {
	t.Helper()
	var o *reqstate.IssueOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := f.codec.Issue(req, want, o)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	return s
}

func open(f *fixture, req mcp.Request) (deployState, error) {
	return reqstate.Open[deployState](context.Background(), f.codec, req)
}

func mustRefuse(t *testing.T, err error, reason error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want %v", what, reason)
	}
	if reason != nil && !errors.Is(err, reason) {
		t.Fatalf("%s: got %v, want %v", what, err, reason)
	}
	if !reqstate.IsRefusal(err) {
		t.Fatalf("%s: %v is not a refusal", what, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, mode)
			s := issue(t, f, toolReq("alice", "deploy", args, ""))
			got, err := open(f, toolReq("alice", "deploy", args, s))
			if err != nil || got != want {
				t.Fatalf("Open = %+v, %v; want %+v", got, err, want)
			}
			// The same request may carry its arguments in another key order,
			// spacing and number spelling.
			s = issue(t, f, toolReq("alice", "deploy", `{"a":1,"b":[true,null,2.50],"c":{"y":"é","x":1e2}}`, ""))
			if _, err := open(f, toolReq("alice", "deploy", ` { "c":{"x":100,"y":"\u00e9"}, "b":[true,null,2.5], "a":1.0 }`, s)); err != nil {
				t.Fatalf("Open with reordered arguments: %v", err)
			}
		})
	}
}

func TestSignedIsReadableSealedIsNot(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""))
		readable := false
		for _, part := range strings.Split(s, ".") {
			if b, err := base64.RawURLEncoding.DecodeString(part); err == nil && strings.Contains(string(b), "2.4.1") {
				readable = true
			}
		}
		if readable != (mode == reqstate.Signed) {
			t.Errorf("%v state: payload readable = %v", mode, readable)
		}
	}
}

func TestRefusesByteFlipsAnywhere(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, mode)
			s := issue(t, f, toolReq("alice", "deploy", args, ""))
			for i := 0; i < len(s); i++ {
				for _, x := range []byte{0x01, 0x02, 0x20, 0x7f} {
					b := []byte(s)
					b[i] ^= x
					_, err := open(f, toolReq("alice", "deploy", args, string(b)))
					mustRefuse(t, err, nil, fmt.Sprintf("flip of byte %d with %#x", i, x))
				}
			}
		})
	}
}

func TestRefusesTruncationAndAppending(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, mode)
			s := issue(t, f, toolReq("alice", "deploy", args, ""))
			for n := 0; n < len(s); n++ {
				_, err := open(f, toolReq("alice", "deploy", args, s[:n]))
				mustRefuse(t, err, nil, "truncated state")
				// Base64 decoders skip line breaks; the codec must not.
				_, err = open(f, toolReq("alice", "deploy", args, s[:n]+"\n"+s[n:]))
				mustRefuse(t, err, reqstate.ErrTampered, fmt.Sprintf("newline at %d", n))
			}
			for _, tail := range []string{"-TAMPERED", "A", ".", "==", " ", "\n", "\r\n"} {
				_, err := open(f, toolReq("alice", "deploy", args, s+tail))
				mustRefuse(t, err, reqstate.ErrTampered, "state with "+tail+" appended")
			}
		})
	}
}

// TestRefusesEditedSignedPayload decodes a signed state, edits a value, encodes
// it again and keeps the old tag.
func TestRefusesEditedSignedPayload(t *testing.T) {
	f := newFixture(t, reqstate.Signed)
	s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		t.Fatalf("signed state has %d parts, want 4", len(parts))
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	// The claims are binary: flags at 1, expiry at 10..17, then the
	// length-prefixed subject, method, name and digest, the nonce, the payload.
	edits := map[string]func([]byte) []byte{
		"version": func(b []byte) []byte { return bytes.Replace(b, []byte("2.4.1"), []byte("2.4.2"), 1) },
		"expiry":  func(b []byte) []byte { b[12]++; return b },
		"user":    func(b []byte) []byte { return bytes.Replace(b, []byte("alice"), []byte("alicf"), 1) },
		"tool":    func(b []byte) []byte { return bytes.Replace(b, []byte("deploy"), []byte("delete"), 1) },
		"nonce": func(b []byte) []byte {
			i := bytes.Index(b, []byte(`{"service"`)) // the payload follows the nonce
			b[1] = 0
			return append(b[:i-16:i-16], b[i:]...)
		},
	}
	for name, edit := range edits {
		nb := edit(bytes.Clone(body))
		if bytes.Equal(nb, body) {
			t.Fatalf("edit %s changed nothing", name)
		}
		forged := strings.Join([]string{parts[0], parts[1], base64.RawURLEncoding.EncodeToString(nb), parts[3]}, ".")
		req := toolReq("alice", "deploy", args, forged)
		if name == "user" {
			req = toolReq("alicf", "deploy", args, forged)
		}
		if name == "tool" {
			req = toolReq("alice", "delete", args, forged)
		}
		_, err := open(f, req)
		mustRefuse(t, err, reqstate.ErrTampered, "edited "+name)
	}
}

func TestRefusesOtherKeys(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			mine := newFixture(t, mode, key("k1", 1))
			sameIDOtherSecret := newFixture(t, mode, key("k1", 2))
			otherID := newFixture(t, mode, key("k9", 1))
			s := issue(t, sameIDOtherSecret, toolReq("alice", "deploy", args, ""))
			_, err := open(mine, toolReq("alice", "deploy", args, s))
			mustRefuse(t, err, reqstate.ErrTampered, "state from another secret")
			s = issue(t, otherID, toolReq("alice", "deploy", args, ""))
			_, err = open(mine, toolReq("alice", "deploy", args, s))
			mustRefuse(t, err, reqstate.ErrUnknownKey, "state from an unknown key id")
		})
	}
}

func TestRefusesOtherMode(t *testing.T) {
	signed := newFixture(t, reqstate.Signed)
	sealed := newFixture(t, reqstate.Sealed)
	_, err := open(sealed, toolReq("alice", "deploy", args, issue(t, signed, toolReq("alice", "deploy", args, ""))))
	mustRefuse(t, err, reqstate.ErrTampered, "signed state to a sealed codec")
	_, err = open(signed, toolReq("alice", "deploy", args, issue(t, sealed, toolReq("alice", "deploy", args, ""))))
	mustRefuse(t, err, reqstate.ErrTampered, "sealed state to a signed codec")
}

func TestKeyRotation(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			old := newFixture(t, mode, key("2026-06", 1))
			rotated := newFixture(t, mode, key("2026-07", 2), key("2026-06", 1))
			retired := newFixture(t, mode, key("2026-07", 2))

			s := issue(t, old, toolReq("alice", "deploy", args, ""))
			if _, err := open(rotated, toolReq("alice", "deploy", args, s)); err != nil {
				t.Fatalf("rotated codec refuses a state of its older key: %v", err)
			}
			_, err := open(retired, toolReq("alice", "deploy", args, s))
			mustRefuse(t, err, reqstate.ErrUnknownKey, "state of a retired key")

			s = issue(t, rotated, toolReq("alice", "deploy", args, ""))
			if !strings.Contains(s, "2026-07.") {
				t.Fatalf("rotated codec did not seal with its newest key: %s", s)
			}
			if _, err := open(retired, toolReq("alice", "deploy", args, s)); err != nil {
				t.Fatalf("state of the newest key after retirement: %v", err)
			}
		})
	}
}

func TestRefusesExpired(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{TTL: time.Minute})
		f.clock.t = f.clock.t.Add(59 * time.Second)
		if _, err := open(f, toolReq("alice", "deploy", args, s)); err != nil {
			t.Fatalf("%v: state before expiry: %v", mode, err)
		}
		f.clock.t = f.clock.t.Add(time.Second)
		_, err := open(f, toolReq("alice", "deploy", args, s))
		mustRefuse(t, err, reqstate.ErrExpired, "expired state")
	}
}

func TestRefusesOtherUser(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""))
		_, err := open(f, toolReq("bob", "deploy", args, s))
		mustRefuse(t, err, reqstate.ErrOtherUser, "alice's state presented by bob")
		_, err = open(f, toolReq("", "deploy", args, s))
		mustRefuse(t, err, reqstate.ErrOtherUser, "alice's state presented without a token")
		s = issue(t, f, toolReq("", "deploy", args, ""))
		_, err = open(f, toolReq("bob", "deploy", args, s))
		mustRefuse(t, err, reqstate.ErrOtherUser, "an anonymous state presented by bob")
	}
}

func TestRefusesOtherRequest(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""))
		others := map[string]mcp.Request{
			"other arguments":       toolReq("alice", "deploy", `{"service":"billing"}`, s),
			"extra argument":        toolReq("alice", "deploy", `{"service":"auth-service","force":true}`, s),
			"no arguments":          toolReq("alice", "deploy", ``, s),
			"other tool":            toolReq("alice", "rollback", args, s),
			"prompt with that name": promptReq("alice", "deploy", map[string]string{"service": "auth-service"}, s),
			"resource":              resourceReq("alice", "deploy", s),
		}
		for name, req := range others {
			_, err := open(f, req)
			mustRefuse(t, err, reqstate.ErrOtherRequest, name)
		}
	}
}

func TestPromptAndResourceRequests(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	pargs := map[string]string{"b": "2", "a": "1"}
	s := issue(t, f, promptReq("alice", "p", pargs, ""))
	if _, err := open(f, promptReq("alice", "p", map[string]string{"a": "1", "b": "2"}, s)); err != nil {
		t.Fatalf("prompt round trip: %v", err)
	}
	_, err := open(f, promptReq("alice", "p", map[string]string{"a": "1", "b": "3"}, s))
	mustRefuse(t, err, reqstate.ErrOtherRequest, "prompt with other arguments")

	s = issue(t, f, resourceReq("alice", "file:///a", ""))
	if _, err := open(f, resourceReq("alice", "file:///a", s)); err != nil {
		t.Fatalf("resource round trip: %v", err)
	}
	_, err = open(f, resourceReq("alice", "file:///b", s))
	mustRefuse(t, err, reqstate.ErrOtherRequest, "resource with another URI")
}

func TestSingleUse(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
		if _, err := open(f, toolReq("alice", "deploy", args, s)); err != nil {
			t.Fatalf("first use: %v", err)
		}
		_, err := open(f, toolReq("alice", "deploy", args, s))
		mustRefuse(t, err, reqstate.ErrReused, "second use")
	}
}

// TestRefusedStateDoesNotBurnNonce: a single-use state presented with the
// wrong request is refused without being consumed.
func TestRefusedStateDoesNotBurnNonce(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
	_, err := open(f, toolReq("bob", "deploy", args, s))
	mustRefuse(t, err, reqstate.ErrOtherUser, "bob")
	if _, err := open(f, toolReq("alice", "deploy", args, s)); err != nil {
		t.Fatalf("alice after bob's refused attempt: %v", err)
	}
}

func TestSingleUseConcurrent(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
		const n = 64
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = open(f, toolReq("alice", "deploy", args, s))
			}()
		}
		close(start)
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if !errors.Is(err, reqstate.ErrReused) {
				t.Fatalf("concurrent use: %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%v: %d of %d concurrent uses succeeded, want 1", mode, wins, n)
		}
	}
}

func TestSingleUseNeedsStore(t *testing.T) {
	c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Issue(toolReq("alice", "deploy", args, ""), want, &reqstate.IssueOptions{SingleUse: true}); err == nil {
		t.Fatal("Issue(SingleUse) without a replay store succeeded")
	}
	// A single-use state from a codec with a store, opened by one without.
	f := newFixture(t, reqstate.Sealed)
	s := issue(t, f, toolReq("alice", "deploy", args, ""), &reqstate.IssueOptions{SingleUse: true})
	if _, err := reqstate.Open[deployState](context.Background(), c, toolReq("alice", "deploy", args, s)); err == nil {
		t.Fatal("a single-use state opened without a replay store")
	}
}

func TestRefusesOversized(t *testing.T) {
	for _, mode := range modes {
		f := newFixture(t, mode)
		huge := strings.Repeat("A", reqstate.DefaultMaxSize+1)
		_, err := open(f, toolReq("alice", "deploy", args, huge))
		mustRefuse(t, err, reqstate.ErrTooLarge, "oversized state")
		_, err = f.codec.Issue(toolReq("alice", "deploy", args, ""), strings.Repeat("x", reqstate.DefaultMaxSize), nil)
		if !errors.Is(err, reqstate.ErrTooLarge) {
			t.Fatalf("Issue of an oversized payload = %v, want ErrTooLarge", err)
		}
	}
}

func TestMissingState(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	_, err := open(f, toolReq("alice", "deploy", args, ""))
	mustRefuse(t, err, reqstate.ErrMissing, "no state")
}

func TestRequireSubject(t *testing.T) {
	c, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 1)}, RequireSubject: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Issue(toolReq("", "deploy", args, ""), want, nil); err == nil {
		t.Fatal("Issue without a user succeeded although RequireSubject is set")
	}
	if _, err := c.Issue(toolReq("alice", "deploy", args, ""), want, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCustomSubject(t *testing.T) {
	c, err := reqstate.New(&reqstate.Options{
		Keys: []keys.Key{key("k1", 1)},
		Subject: func(r mcp.Request) string {
			return r.GetExtra().Header.Get("X-User")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	withUser := func(u, state string) *mcp.CallToolRequest {
		r := toolReq("", "deploy", args, state)
		r.Extra = &mcp.RequestExtra{Header: map[string][]string{"X-User": {u}}}
		return r
	}
	s, err := c.Issue(withUser("carol", ""), want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reqstate.Open[deployState](context.Background(), c, withUser("carol", s)); err != nil {
		t.Fatal(err)
	}
	_, err = reqstate.Open[deployState](context.Background(), c, withUser("dave", s))
	mustRefuse(t, err, reqstate.ErrOtherUser, "custom subject")
}

func TestPayloadOfAnotherType(t *testing.T) {
	f := newFixture(t, reqstate.Sealed)
	s := issue(t, f, toolReq("alice", "deploy", args, ""))
	_, err := reqstate.Open[[]int](context.Background(), f.codec, toolReq("alice", "deploy", args, s))
	mustRefuse(t, err, reqstate.ErrTampered, "payload of another type")
}

func TestNewRefusesWeakConfig(t *testing.T) {
	bad := map[string]*reqstate.Options{
		"no options":    nil,
		"no keys":       {},
		"short secret":  {Keys: []keys.Key{{ID: "k", Secret: []byte("short")}}},
		"empty id":      {Keys: []keys.Key{key("", 1)}},
		"id with a dot": {Keys: []keys.Key{key("a.b", 1)}},
		"duplicate id":  {Keys: []keys.Key{key("k", 1), key("k", 2)}},
		"unknown mode":  {Mode: 7, Keys: []keys.Key{key("k", 1)}},
	}
	for name, o := range bad {
		if _, err := reqstate.New(o); err == nil {
			t.Errorf("New with %s succeeded", name)
		}
	}
}

func TestClientErrorRevealsNothing(t *testing.T) {
	var msgs []string
	for _, reason := range []error{reqstate.ErrMissing, reqstate.ErrTooLarge, reqstate.ErrTampered, reqstate.ErrUnknownKey,
		reqstate.ErrExpired, reqstate.ErrOtherUser, reqstate.ErrOtherRequest, reqstate.ErrReused} {
		err := reqstate.ClientError(errors.Join(errors.New("open requestState"), reason))
		je, ok := err.(*jsonrpc.Error)
		if !ok {
			t.Fatalf("ClientError(%v) is %T, want *jsonrpc.Error", reason, err)
		}
		if je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("ClientError(%v).Code = %d, want %d", reason, je.Code, jsonrpc.CodeInvalidParams)
		}
		msgs = append(msgs, je.Message)
	}
	for _, m := range msgs {
		if m != reqstate.ClientMessage {
			t.Errorf("client message %q differs from %q", m, reqstate.ClientMessage)
		}
	}
	je := reqstate.ClientError(errors.New("redis: connection refused")).(*jsonrpc.Error)
	if je.Code != jsonrpc.CodeInternalError || strings.Contains(je.Message, "redis") {
		t.Errorf("ClientError of a server failure = %d %q", je.Code, je.Message)
	}
	if reqstate.ClientError(nil) != nil {
		t.Error("ClientError(nil) != nil")
	}
}
