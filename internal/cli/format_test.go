package cli

import (
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

func TestFormatFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		bad  bool
	}{
		{nil, "text", false},
		{[]string{"--format", "json"}, "json", false},
		{[]string{"--json"}, "json", false},
		{[]string{"--json=false"}, "text", false},
		{[]string{"--format", "xml"}, "", true},
	} {
		ios, _, _, _ := iostreams.Test()
		cmd := newToolsCmd(ios).Commands()[0]
		err := cmd.Flags().Parse(tc.args)
		if tc.bad != (err != nil) {
			t.Errorf("%v: error %v", tc.args, err)
			continue
		}
		if got := cmd.Flags().Lookup("format").Value.String(); !tc.bad && got != tc.want {
			t.Errorf("%v: format %q, want %q", tc.args, got, tc.want)
		}
	}
}
