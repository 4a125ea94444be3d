package cli

import "testing"

func TestNewCompleteCmd(t *testing.T) {
	conn := connDefaults("./server", false)
	runFlagCases(t, newCompleteCmd, []flagCase[CompleteOptions]{
		{name: "a prompt's argument", args: []string{"--prompt", "release-notes", "version", "2.4", "-c", "./server"},
			want: CompleteOptions{Prompt: "release-notes", Argument: "version", Value: "2.4", Format: "text", Conn: conn}},
		{name: "a template's variable, nothing typed", args: []string{"--template", "customer://{id}", "id", "-c", "./server", "--context", "a=1", "--context", "b=2", "--format", "json"},
			want: CompleteOptions{Template: "customer://{id}", Argument: "id", Context: []string{"a=1", "b=2"}, Format: "json", Conn: conn}},
		{name: "no argument", args: []string{"--prompt", "x"}, wantErr: "accepts between 1 and 2 arg(s), received 0"},
		{name: "too many", args: []string{"a", "b", "c"}, wantErr: "accepts between 1 and 2 arg(s), received 3"},
	})
}
