package script

import (
	"strings"
	"testing"
)

// TestDeployerTasks runs the task commands against the deployer's rollout
// tool, which runs as a task, over stdio through the mcp-tester session
// with the tasks extension declared.
func TestDeployerTasks(t *testing.T) {
	t.Parallel()
	bin := deployerBinary(t)
	opts := deployerOptions(bin)
	opts.Target.Command = bin + " -rollout-step 10ms"
	opts.Tasks = true
	connect := SessionConnectScript(opts)

	for _, tc := range []struct {
		name, src string
		want      []string // in the output
		failed    int
	}{
		{name: "call_tool continue", src: `elicit_response accept '{"decision": "continue"}'
call_tool rollout service:auth version:"2.5.0"
assert_elicited "continue?" key=decision field=decision action=accept
assert_elicited_count 1
assert_contains "Rollout of auth 2.5.0 complete: 10 of 10 instances updated."
assert_task_status completed
get_task
assert_task_status completed
assert_contains "10 of 10"
`, want: []string{"task ", ": completed – Rollout of auth 2.5.0 complete"}},
		{name: "call_tool rollback", src: `elicit_response decision=accept '{"decision": "rollback"}'
call_tool rollout service:auth version:"2.5.0"
assert_contains "Rolled back auth 2.5.0"
assert_task_status completed
`},
		{name: "start, read, cancel", src: `start_tool rollout service:auth version:"2.5.0"
assert_task_status working
get_task
assert_task_status input_required
assert_contains "50% of instances updated"
set_var s $.status
assert_equals $s input_required
cancel_task
get_task
assert_task_status cancelled
expect_error wait_task
assert_task_status cancelled
`},
		{name: "start then wait", src: `start_tool rollout service:web version:"1.0.0"
set_var id $.taskId
elicit_response accept '{"decision": "continue"}'
wait_task $id
assert_elicited key=decision action=accept
assert_contains "Rollout of web 1.0.0 complete"
assert_task_status completed
`},
		{name: "direct call is no task", src: `elicit_response accept '{"environment": "staging", "confirm": true}'
call_tool deploy service:x
assert_task_status completed
`, failed: 1, want: []string{"call_tool (line 2) did not run as a task: the server answered directly"}},
		{name: "unused answers", src: `elicit_response accept '{"decision": "continue"}'
start_tool rollout service:auth version:"2.5.0"
elicit_response accept '{"decision": "continue"}'
elicit_response decline
wait_task
assert_task_status completed
`, failed: 2, want: []string{
			"started task ", "whose questions come later; write the answer after start_tool, for wait_task",
			"the answer was never used: the server asked only 1 question(s) during wait_task (line 5)",
		}},
		{name: "unknown task", src: `expect_error get_task NO-SUCH-TASK
assert_error_code -32602
expect_error cancel_task NO-SUCH-TASK
expect_error wait_task NO-SUCH-TASK
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, out := runText(t, "r.mcp", tc.src, RunOptions{ConnectScript: connect})
			if _, f := rep.Counts(); f != tc.failed {
				t.Fatalf("%d failed, want %d:\n%s", f, tc.failed, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
