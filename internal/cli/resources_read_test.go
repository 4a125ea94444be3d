package cli

import "testing"

func TestNewResourcesReadCmd(t *testing.T) {
	conn := connDefaults("./server", true)
	runFlagCases(t, newResourcesReadCmd, []flagCase[ResourcesReadOptions]{
		{name: "defaults", args: []string{"note://01", "-c", "./server"},
			want: ResourcesReadOptions{URI: "note://01", Format: "text", Conn: conn}},
		{name: "answers as JSON", args: []string{"config://prod", "-c", "./server", "--elicit", "accept", "--json", "--no-validate", "--interactive"},
			want: ResourcesReadOptions{URI: "config://prod", Format: "json", Answers: AnswerOptions{Elicit: []string{"accept"}, Interactive: true},
				Conn: func() ConnOptions { c := conn; c.NoValidate = true; return c }()}},
		{name: "no --args", args: []string{"note://01", "--args", "{}"}, wantErr: "unknown flag: --args"},
		{name: "no URI", args: nil, wantErr: "accepts 1 arg(s), received 0"},
	})
}
