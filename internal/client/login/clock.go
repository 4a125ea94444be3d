package login

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Clock is the time limit of the request a login runs in (the command's
// --timeout, per request, or --connect-timeout while connecting): a login
// without a limit of its own ends within what is left of it; one with its
// own (Settings.Timeout) pauses it meanwhile.
type Clock interface {
	// Pause stops the clock until the function it returns is called.
	Pause() (resume func())
	// Left is the time left, false when the clock has no limit.
	Left() (time.Duration, bool)
	// Limit is the caller's setting the clock measures, for the error
	// of a login that ran out of its time: SettingRequestTimeout or
	// SettingConnectTimeout.
	Limit() Setting
}

type clockKey struct{}

// WithClock returns ctx carrying the clock of the request it serves.
func WithClock(ctx context.Context, c Clock) context.Context {
	return context.WithValue(ctx, clockKey{}, c)
}

// requestClock is the clock ctx carries, nil when none.
func requestClock(ctx context.Context) Clock {
	c, _ := ctx.Value(clockKey{}).(Clock)
	return c
}

// clockLimit is the setting the clock ctx carries measures:
// SettingRequestTimeout when it carries none.
func clockLimit(ctx context.Context) Setting {
	if c := requestClock(ctx); c != nil {
		if s := c.Limit(); s != 0 {
			return s
		}
	}
	return SettingRequestTimeout
}

// pauseClock pauses the clock ctx carries, if any, and returns what
// resumes it.
func pauseClock(ctx context.Context) (resume func()) {
	if c := requestClock(ctx); c != nil {
		if r := c.Pause(); r != nil {
			return r
		}
	}
	return func() {}
}

// timeLeft is how long a login in ctx may take without a limit of its own:
// what is left of the request's clock, else of ctx's deadline; false when
// neither bounds it.
func timeLeft(ctx context.Context) (time.Duration, bool) {
	if c := requestClock(ctx); c != nil {
		if left, ok := c.Left(); ok {
			return left, true
		}
	}
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d), true
	}
	return 0, false
}

// loginTimeout is the cause of a login's context whose time ran out.
type loginTimeout struct {
	limit time.Duration
	own   bool      // the limit is Settings.Timeout's, not the request's
	names *Settings // words the settings in the caller's terms
	// caller is the caller's limit the login shared when not own
	// (SettingRequestTimeout or SettingConnectTimeout).
	caller Setting
}

func (t *loginTimeout) Error() string {
	if t.own {
		return fmt.Sprintf("the login did not end within %s (%s gives more time)", roundWait(t.limit), t.names.Name.Word(SettingTimeout))
	}
	return fmt.Sprintf("the login did not end within the %s the command had left (%s; %s gives a login a limit of its own)", roundWait(t.limit), t.names.Name.Word(t.caller), t.names.Name.Word(SettingTimeout))
}

// asTimeout is the loginTimeout that ended ctx, nil when none did.
func asTimeout(ctx context.Context) *loginTimeout {
	var t *loginTimeout
	if errors.As(context.Cause(ctx), &t) {
		return t
	}
	return nil
}

// with says that err came of the login's time running out, unless err
// already says so.
func (t *loginTimeout) with(err error) error {
	var already *loginTimeout
	if errors.As(err, &already) {
		return err
	}
	return fmt.Errorf("%w: %v", t, err)
}
