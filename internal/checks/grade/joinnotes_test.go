package grade

import "testing"

// Reasons are said once, at most n of them, a note that only says more of
// one given counting for none.
func TestJoinNotes(t *testing.T) {
	for _, c := range []struct {
		notes []string
		want  string
	}{
		{[]string{"asks nothing", "asks nothing: the call ends in an isError result"}, "asks nothing: the call ends in an isError result"},
		{[]string{"asks nothing: the call ends in an isError result", "asks nothing"}, "asks nothing: the call ends in an isError result"},
		{[]string{"asks nothing", "asks nothing: A", "asks nothing: B", "protocol P has none"}, "asks nothing: A; B"},
		{[]string{"asks nothing", "asks nothing: A", "protocol P has none", "asks nothing: B"}, "asks nothing: A; protocol P has none"},
		{[]string{"one", "two", "three"}, "one; two"},
	} {
		if got := joinNotes(c.notes, 2); got != c.want {
			t.Errorf("joinNotes(%q) = %q, want %q", c.notes, got, c.want)
		}
	}
}
