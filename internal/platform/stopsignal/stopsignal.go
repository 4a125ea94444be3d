// Package stopsignal holds the signals that stop mcp-tester before its
// command ends: an interrupt (SIGINT, Ctrl-C) and a request to terminate
// (SIGTERM: what timeout(1), docker stop, systemd and a cancelled CI job
// send). Either ends the command's context with a [*Signal] as its cause,
// so that the command ends as it does when interrupted (its report so far,
// the servers it started closed), and says which came, each with the exit
// code a shell gives a command that signal ended.
package stopsignal

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of a command a signal stopped: 128 and the signal's number, as
// a shell reports a command that signal ended.
const (
	ExitInterrupted = 130 // SIGINT (Ctrl-C)
	ExitTerminated  = 143 // SIGTERM
)

// Signal is the cause of a context a stop signal ended.
type Signal struct {
	terminated bool
}

// Interrupt is the cause of a context an interrupt (SIGINT, Ctrl-C) ended.
func Interrupt() *Signal { return &Signal{} }

// Terminate is the cause of a context a request to terminate (SIGTERM)
// ended.
func Terminate() *Signal { return &Signal{terminated: true} }

// Error says which signal came, in the words of [signal.NotifyContext]'s
// cause.
func (s *Signal) Error() string {
	if s.terminated {
		return "terminated signal received"
	}
	return "interrupt signal received"
}

// Word is how a command's report says it was stopped: "interrupted" or
// "terminated".
func (s *Signal) Word() string {
	if s.terminated {
		return "terminated"
	}
	return "interrupted"
}

// ExitCode is the exit code of a command the signal stopped.
func (s *Signal) ExitCode() int {
	if s.terminated {
		return ExitTerminated
	}
	return ExitInterrupted
}

// Notify returns a copy of parent that ends, its cause a [*Signal], when
// SIGINT or SIGTERM comes. Until stop is called, no later SIGINT or
// SIGTERM ends the process (the command ends in order, as the first one
// asked); stop ends the context and restores the signals' default.
func Notify(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			if s == syscall.SIGTERM {
				cancel(Terminate())
			} else {
				cancel(Interrupt())
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel(nil)
		signal.Stop(ch)
	}
}

// Of returns how ctx, which has ended, was stopped: its cause when a
// [*Signal], else an interrupt (a context a caller cancelled, Ctrl-C typed
// at a form that reads the terminal's keys raw). It returns nil while ctx
// has not ended.
func Of(ctx context.Context) *Signal {
	if ctx.Err() == nil {
		return nil
	}
	var s *Signal
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return Interrupt()
}
