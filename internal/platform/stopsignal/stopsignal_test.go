package stopsignal

import (
	"context"
	"errors"
	"testing"
)

func TestOf(t *testing.T) {
	if s := Of(context.Background()); s != nil {
		t.Errorf("Of(a live context) = %v, want nil", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s := Of(ctx); s.ExitCode() != ExitInterrupted || s.Word() != "interrupted" {
		t.Errorf("Of(a cancelled context) = %v (%d), want an interrupt", s, s.ExitCode())
	}
	cctx, ccancel := context.WithCancelCause(context.Background())
	ccancel(Terminate())
	inner, stop := context.WithCancelCause(cctx)
	defer stop(nil)
	if s := Of(inner); s.ExitCode() != ExitTerminated || s.Word() != "terminated" || s.Error() != "terminated signal received" {
		t.Errorf("Of(a context SIGTERM ended) = %v (%d), want terminated", s, s.ExitCode())
	}
	if !errors.Is(context.Cause(inner), context.Cause(cctx)) {
		t.Errorf("the cause is not passed on")
	}
}
