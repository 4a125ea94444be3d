package fromrecording

import (
	"errors"
	"testing"

	"github.com/askback/askback/internal/recording/conversation"
)

// TestNothingButListsNamesTheWayOn: a recording of list requests only has
// nothing to replay, and the error names the option that makes calls of
// them as the Go API does, or as the caller's Name says (a command line's
// flag).
func TestNothingButListsNamesTheWayOn(t *testing.T) {
	flag := func(o Option) string {
		if o == OptionLists {
			return "--lists"
		}
		return ""
	}
	for _, c := range []struct {
		nameOf func(Option) string
		want   string
	}{
		{nil, "the recording holds no call a script can replay: it holds 2 list request(s), which conversation.Options.Lists makes calls of"},
		{func(Option) string { return "" }, "the recording holds no call a script can replay: it holds 2 list request(s), which conversation.Options.Lists makes calls of"},
		{flag, "the recording holds no call a script can replay: it holds 2 list request(s), which --lists makes calls of"},
	} {
		_, _, err := Write(&conversation.Conversation{Lists: 2}, Options{Name: c.nameOf})
		if !errors.Is(err, ErrNothing) || err.Error() != c.want {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	if got := Option(0).String(); got != "Option(0)" {
		t.Errorf("Option(0) = %q", got)
	}
}
