package asktest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// T stands in for the *testing.T of a test in these examples and tests:
// it keeps what the test reports (its errors, logs and subtests) instead
// of failing the real test, so that a test can check that an assertion of
// asktest fails, and an example can show how.
type T struct {
	testing.TB // nil: what asktest does not call is not there
	name       string
	ctx        context.Context
	cancel     context.CancelFunc

	mu       sync.Mutex
	failed   bool
	errors   []string // what Error, Errorf, Fatal and Fatalf said, by the subtests too
	logs     []string
	cleanups []func()
}

// run runs f as a test named name, then its cleanups, as go test does.
func run(name string, f func(t *T)) *T {
	ctx, cancel := context.WithCancel(context.Background())
	t := &T{name: name, ctx: ctx, cancel: cancel}
	t.do(func() { f(t) })
	t.cancel()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.do(t.cleanups[i])
	}
	return t
}

// do runs f on a goroutine of its own, which Fatal ends.
func (t *T) do(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func (t *T) Helper()                  {}
func (t *T) Name() string             { return t.name }
func (t *T) Context() context.Context { return t.ctx }

func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

func (t *T) Errorf(format string, args ...any) { t.report(fmt.Sprintf(format, args...)) }
func (t *T) Error(args ...any)                 { t.report(fmt.Sprintln(args...)) }
func (t *T) Fatalf(format string, args ...any) { t.Errorf(format, args...); runtime.Goexit() }
func (t *T) Fatal(args ...any)                 { t.Error(args...); runtime.Goexit() }
func (t *T) FailNow()                          { t.Fail(); runtime.Goexit() }
func (t *T) Logf(format string, args ...any)   { t.log(fmt.Sprintf(format, args...)) }
func (t *T) Log(args ...any)                   { t.log(fmt.Sprintln(args...)) }

func (t *T) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}

func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *T) report(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
	t.errors = append(t.errors, strings.TrimSuffix(msg, "\n"))
}

func (t *T) log(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.logs = append(t.logs, strings.TrimSuffix(msg, "\n"))
}

// Run runs f as a subtest; what it reports is the parent's too, its
// messages prefixed with its name.
func (t *T) Run(name string, f func(t *T)) bool {
	sub := run(t.name+"/"+name, f)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range sub.errors {
		t.errors = append(t.errors, name+": "+e)
	}
	t.logs = append(t.logs, sub.logs...)
	if sub.failed {
		t.failed = true
	}
	return !sub.failed
}

// Errors returns what the test reported as failures, one a line.
func (t *T) Errors() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.errors, "\n")
}

// print writes what the test reported, as the examples show it: PASS, or
// FAIL and each failure.
func (t *T) print() {
	if !t.Failed() {
		fmt.Println("PASS")
		return
	}
	fmt.Println("FAIL")
	fmt.Println(t.Errors())
}
