package login

import "context"

type pauseKey struct{}

// WithPause returns ctx carrying pause, which a login calls while a person
// is in the browser, and whose returned function it calls when they are
// back: a caller's time limit then counts the server's time only.
func WithPause(ctx context.Context, pause func() (resume func())) context.Context {
	return context.WithValue(ctx, pauseKey{}, pause)
}

// pauseClock pauses the clock ctx carries, if any, and returns what
// resumes it.
func pauseClock(ctx context.Context) (resume func()) {
	if p, ok := ctx.Value(pauseKey{}).(func() (resume func())); ok && p != nil {
		if r := p(); r != nil {
			return r
		}
	}
	return func() {}
}
