package cli

import "testing"

func TestNewInspectCmd(t *testing.T) {
	conn := connDefaults("./server", true)
	runFlagCases(t, newInspectCmd, []flagCase[InspectOptions]{
		{name: "defaults", args: []string{"-c", "./server"},
			want: InspectOptions{Conn: conn, Format: "text", SARIFFile: "catalog.json", MaxProbes: 20}},
		{name: "probes and icons", args: []string{"-c", "./server", "--probe", "--max-probes", "3", "--check-icons", "--download-icons", "icons", "--min-score", "80", "--format", "json", "--html", "i.html", "--no-tasks"},
			want: InspectOptions{Conn: func() ConnOptions { c := conn; c.NoTasks = true; return c }(), Format: "json", SARIFFile: "catalog.json", Probe: true, MaxProbes: 3, CheckIcons: true, DownloadIcons: "icons", MinScore: 80, HTML: "i.html"}},
		{name: "no answers to give", args: []string{"-c", "./server", "--elicit", "accept"}, wantErr: "unknown flag: --elicit"},
	})
}
