package cli

import "testing"

func TestNewLoggingCmd(t *testing.T) {
	conn := connDefaults("./server", false)
	runFlagCases(t, newLoggingCmd, []flagCase[LoggingOptions]{
		{name: "a level", args: []string{"warning", "-c", "./server"}, want: LoggingOptions{Level: "warning", Format: "text", Conn: conn}},
		{name: "wait for messages", args: []string{"debug", "-c", "./server", "--count", "4", "--format", "json"},
			want: LoggingOptions{Level: "debug", Count: 4, Format: "json", Conn: conn}},
		{name: "no level", args: []string{"-c", "./server"}, wantErr: "accepts 1 arg(s), received 0"},
	})
}
