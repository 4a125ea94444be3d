package cli

import "testing"

func TestNewPromptsGetCmd(t *testing.T) {
	conn := connDefaults("./server", true)
	runFlagCases(t, newPromptsGetCmd, []flagCase[PromptsGetOptions]{
		{name: "defaults", args: []string{"greeting", "-c", "./server"},
			want: PromptsGetOptions{Name: "greeting", Args: "{}", Format: "text", Conn: conn}},
		{name: "arguments, answers, raw", args: []string{"greeting", "-c", "./server", "--args", `{"name":"Ada"}`, "--elicit", "accept", "--raw", "--record", "p.mcp", "--open"},
			want: PromptsGetOptions{Name: "greeting", Args: `{"name":"Ada"}`, Format: "text", Answers: AnswerOptions{Elicit: []string{"accept"}, Record: "p.mcp", Open: true},
				Conn: func() ConnOptions { c := conn; c.Raw = true; return c }()}},
		{name: "no tasks for prompts", args: []string{"greeting", "--no-tasks"}, wantErr: "unknown flag: --no-tasks"},
		{name: "no name", args: nil, wantErr: "accepts 1 arg(s), received 0"},
	})
}
