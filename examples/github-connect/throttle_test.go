package main

import (
	"fmt"
	"testing"
	"time"
)

// fakeNow is a clock the test moves.
type fakeNow struct{ t time.Time }

func (c *fakeNow) now() time.Time { return c.t }

func attempt(t *testing.T, th *signInThrottle, addr, account string, right bool) (ok bool, wait time.Duration) {
	t.Helper()
	done, wait := th.begin(addr, account)
	if done == nil {
		return false, wait
	}
	done(right)
	return true, 0
}

// A run of wrong passwords from one address for one account waits, longer
// after each; a right one clears the run.
func TestThrottleDelaysARunOfWrongPasswords(t *testing.T) {
	clk := &fakeNow{t: time.Unix(1e9, 0)}
	th := newSignInThrottle(defaultThrottle, clk.now)
	for i := range 3 {
		if ok, _ := attempt(t, th, "a", "alice", false); !ok {
			t.Fatalf("wrong password %d was not let through", i+1)
		}
	}
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		ok, wait := attempt(t, th, "a", "alice", false)
		if ok || wait != want {
			t.Fatalf("after a run of wrong passwords: ok %v, wait %v; want a wait of %v", ok, wait, want)
		}
		clk.t = clk.t.Add(want)
		if ok, _ := attempt(t, th, "a", "alice", false); !ok {
			t.Fatalf("refused after waiting %v", want)
		}
	}
	// Another account from the same address, and the same account from
	// another address, are not delayed by this run.
	if ok, _ := attempt(t, th, "a", "bob", false); !ok {
		t.Fatal("another account delayed")
	}
	if ok, _ := attempt(t, th, "b", "alice", true); !ok {
		t.Fatal("another address delayed")
	}
	clk.t = clk.t.Add(8 * time.Second)
	if ok, _ := attempt(t, th, "a", "alice", true); !ok {
		t.Fatal("the right password after the wait")
	}
	for i := range 3 {
		if ok, _ := attempt(t, th, "a", "alice", false); !ok {
			t.Fatalf("a mistake %d after signing in was delayed", i+1)
		}
	}
}

// One address has a budget of attempts, whatever the accounts; it refills
// slowly.
func TestThrottleAddressBudget(t *testing.T) {
	clk := &fakeNow{t: time.Unix(1e9, 0)}
	th := newSignInThrottle(defaultThrottle, clk.now)
	for i := range defaultThrottle.AddressBurst {
		if ok, _ := attempt(t, th, "a", fmt.Sprint("user", i), false); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	ok, wait := attempt(t, th, "a", "someone-else", false)
	if ok || wait <= 0 || wait > defaultThrottle.AddressRefill {
		t.Fatalf("past the address's budget: ok %v, wait %v", ok, wait)
	}
	if ok, _ := attempt(t, th, "b", "someone-else", false); !ok {
		t.Fatal("another address refused")
	}
	clk.t = clk.t.Add(defaultThrottle.AddressRefill)
	if ok, _ := attempt(t, th, "a", "someone-else", false); !ok {
		t.Fatal("refused once a token refilled")
	}
}

// Many addresses together spend an account's budget: then addresses that
// never signed in to it wait, but the one the real user signed in from is
// only paced, never refused.
func TestThrottleAccountBudgetNeverLocksOutAKnownAddress(t *testing.T) {
	clk := &fakeNow{t: time.Unix(1e9, 0)}
	th := newSignInThrottle(defaultThrottle, clk.now)
	if ok, _ := attempt(t, th, "home", "alice", true); !ok {
		t.Fatal("alice's first sign-in")
	}
	for i := range defaultThrottle.AccountBurst {
		if ok, _ := attempt(t, th, fmt.Sprint("bot", i), "alice", false); !ok {
			t.Fatalf("guess %d refused", i+1)
		}
	}
	ok, wait := attempt(t, th, "bot-new", "alice", false)
	if ok || wait <= 0 || wait > defaultThrottle.AccountRefill {
		t.Fatalf("a new address once the account's budget is spent: ok %v, wait %v", ok, wait)
	}
	clk.t = clk.t.Add(defaultThrottle.KnownPace)
	for i := range 5 {
		if ok, wait := attempt(t, th, "home", "alice", i == 4); !ok {
			t.Fatalf("alice from home, attempt %d, while her account is under attack: waits %v", i+1, wait)
		}
		ok, wait := attempt(t, th, "home", "alice", false)
		if ok || wait > defaultThrottle.KnownPace {
			t.Fatalf("alice from home at once again: ok %v, wait %v: want paced by %v", ok, wait, defaultThrottle.KnownPace)
		}
		clk.t = clk.t.Add(defaultThrottle.KnownPace)
	}
}

// What the throttle remembers is bounded.
func TestThrottleIsBounded(t *testing.T) {
	clk := &fakeNow{t: time.Unix(1e9, 0)}
	l := defaultThrottle
	l.MaxEntries = 100
	th := newSignInThrottle(l, clk.now)
	for i := range 10_000 {
		clk.t = clk.t.Add(time.Millisecond)
		attempt(t, th, fmt.Sprint("addr", i), fmt.Sprint("user", i), false)
	}
	if len(th.pairs) > 100 || len(th.addrs) > 100 || len(th.accounts) > 100 {
		t.Fatalf("remembered %d pairs, %d addresses, %d accounts; limit 100", len(th.pairs), len(th.addrs), len(th.accounts))
	}
}

// Guessers at many addresses cannot make the throttle forget an account
// under attack by trying many other accounts: its spent budget stays spent
// and the address its user signed in from stays known.
func TestThrottleForgetsNoAccountUnderAttack(t *testing.T) {
	clk := &fakeNow{t: time.Unix(1e9, 0)}
	l := defaultThrottle
	l.MaxEntries = 100
	th := newSignInThrottle(l, clk.now)
	if ok, _ := attempt(t, th, "home", "alice", true); !ok {
		t.Fatal("alice's first sign-in")
	}
	// alice's budget is spent, and carol's (who never signed in).
	for _, account := range []string{"alice", "carol"} {
		for i := range l.AccountBurst {
			if ok, _ := attempt(t, th, fmt.Sprint("bot-", account, i), account, false); !ok {
				t.Fatalf("guess %d at %s refused", i+1, account)
			}
		}
	}
	// One attempt each at 1,000 other accounts, from as many addresses.
	for i := range 1000 {
		clk.t = clk.t.Add(time.Millisecond)
		attempt(t, th, fmt.Sprint("filler", i), fmt.Sprint("nobody", i), false)
	}
	for _, account := range []string{"alice", "carol"} {
		if ok, _ := attempt(t, th, "bot-new", account, false); ok {
			t.Fatalf("a new address guessed %s's password again: the spent budget was forgotten", account)
		}
	}
	clk.t = clk.t.Add(l.KnownPace)
	if ok, wait := attempt(t, th, "home", "alice", true); !ok {
		t.Fatalf("alice from home waits %v: the address she signed in from was forgotten", wait)
	}
	if len(th.accounts) > l.MaxEntries {
		t.Fatalf("remembered %d accounts; limit %d", len(th.accounts), l.MaxEntries)
	}
}
