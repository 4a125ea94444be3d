// Package tasks implements the io.modelcontextprotocol/tasks extension on top
// of the go-sdk: a tool call may answer with a task handle instead of a
// result, and the client polls tasks/get, answers questions with tasks/update
// and may stop the work with tasks/cancel.
//
// A server installs the extension once and registers task tools:
//
//	ext, err := tasks.Install(server, &tasks.Options{Store: store})
//	ext.AddTool(&mcp.Tool{Name: "rollout", InputSchema: schema}, tasks.Optional,
//		func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
//			t.Progress(1, 4, "updating the first quarter of the instances")
//			answer, err := t.Ask(ctx, "confirm", &mcp.ElicitParams{...})
//			if err != nil {
//				return nil, err
//			}
//			// ... continue with the answer; the task was never restarted.
//		})
//
// The task's code runs in its own goroutine. Ask blocks it until the client
// answers through tasks/update; cancellation reaches it through ctx. Task
// records live in a [Store]: [NewMemoryStore] by default, a bbolt file
// ([OpenBoltStore]) when tasks must survive a restart. Everything a client
// can make the extension or a store keep is bounded: unfinished tasks in
// total and per user (Options.MaxTasks, MaxTasksPerUser), the size of
// arguments and records, and the records every store keeps until their TTL,
// in total and per user ([StoreLimits]).
package tasks
