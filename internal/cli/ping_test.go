package cli

import "testing"

func TestNewPingCmd(t *testing.T) {
	conn := connDefaults("./deployer", false)
	runFlagCases(t, newPingCmd, []flagCase[PingOptions]{
		{name: "text", args: []string{"-c", "./deployer"}, want: PingOptions{Format: "text", Conn: conn}},
		{name: "json", args: []string{"-c", "./deployer", "--format", "json"}, want: PingOptions{Format: "json", Conn: conn}},
		{name: "no --no-url", args: []string{"--no-url"}, wantErr: "unknown flag: --no-url"},
	})
}
