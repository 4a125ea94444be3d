package cli

import (
	"testing"
	"time"
)

func TestNewResourcesSubscribeCmd(t *testing.T) {
	conn := connDefaults("./server", false)
	runFlagCases(t, newResourcesSubscribeCmd, []flagCase[ResourcesSubscribeOptions]{
		{name: "until interrupted", args: []string{"clock://now", "-c", "./server"},
			want: ResourcesSubscribeOptions{URI: "clock://now", Format: "text", Conn: conn}},
		// --timeout ends the subscription only when it is given.
		{name: "--count and --timeout", args: []string{"clock://now", "-c", "./server", "--count", "3", "--timeout", "1m", "--format", "json"},
			want: ResourcesSubscribeOptions{URI: "clock://now", Count: 3, Format: "json", Limited: true,
				Conn: func() ConnOptions { c := conn; c.Timeout = time.Minute; return c }()}},
		{name: "no --json", args: []string{"clock://now", "--json"}, wantErr: "unknown flag: --json"},
	})
}
