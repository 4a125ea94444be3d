package session

import (
	"errors"
	"testing"
)

// An operation's error says the operation once: what the go-sdk and the
// task client put before the server's words repeats the Op.
func TestErrorSaysOpOnce(t *testing.T) {
	for _, c := range []struct{ op, err, want string }{
		{`tasks/get "nosuch"`, `tasks/get nosuch: calling "tasks/get": Task not found`, `tasks/get "nosuch": Task not found`},
		{`tools/call "x"`, `calling "tools/call": unknown tool "x"`, `tools/call "x": unknown tool "x"`},
		{`tasks/get "t1"`, `tasks/update t1: calling "tasks/update": bad answer`, `tasks/get "t1": tasks/update t1: bad answer`},
		{`tasks/get "a: b"`, `tasks/get a: b: calling "tasks/get": gone`, `tasks/get "a: b": gone`},
		{`tasks/list`, `tasks/list: calling "tasks/list": no`, `tasks/list: no`},
		{`tasks/list`, `calling "tasks/list": no`, `tasks/list: no`},
		// What names something else stays.
		{`tools/call "x"`, `calling "tools/list": no`, `tools/call "x": calling "tools/list": no`},
		{`tools/call "x"`, `tools/call "x": `, `tools/call "x": tools/call "x": `},
		{``, `calling "tools/call": no`, `calling "tools/call": no`},
	} {
		got := (&Error{Op: c.op, Err: errors.New(c.err)}).Error()
		if got != c.want {
			t.Errorf("Op %q, Err %q: %q, want %q", c.op, c.err, got, c.want)
		}
	}
}
