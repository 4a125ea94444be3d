package taskclient

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// jsonInteger is a JSON number with neither fraction nor exponent.
var jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// A task's time in milliseconds is read from what a server sends: taken
// exactly when it is a JSON integer that fits in 64 bits, with that value;
// anything else is refused in words that name the member, never a panic.
func FuzzMillis(f *testing.F) {
	for _, s := range []string{`1500`, `0`, `-1`, `1500.5`, `1e3`, `"1500"`, `null`, `9223372036854775807`, `9223372036854775808`, ` 7 `, `01`, `+5`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m millis[fieldPollInterval]
		err := m.UnmarshalJSON(b)
		text := strings.Trim(string(b), " \t\r\n")
		want, perr := strconv.ParseInt(text, 10, 64)
		switch {
		case err == nil && text != "null" && (perr != nil || int64(m) != want):
			t.Fatalf("%q taken as %d; ParseInt says %d, %v", b, int64(m), want, perr)
		case err != nil && perr == nil && jsonInteger.MatchString(text):
			t.Fatalf("%q refused: %v", b, err)
		case err != nil && !strings.Contains(err.Error(), "the task's pollInterval is "):
			t.Fatalf("%q refused without naming the member: %v", b, err)
		}
	})
}
