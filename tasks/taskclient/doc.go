// Package taskclient drives the io.modelcontextprotocol/tasks extension from
// the client side: it declares the extension on a tool call, recognises a
// task handle in the answer, polls tasks/get at the pace the server asks for,
// hands every question of the task to the caller's answer function, sends the
// answers with tasks/update, and returns the final result exactly as a direct
// call would have.
//
// The go-sdk decodes every tools/call answer into a CallToolResult, which
// has no room for a task handle. So the session must be connected through
// [Transport], which lets this package see the raw answer of the calls it
// makes (and sets the Mcp-Name routing header on tasks/* requests over
// Streamable HTTP), and the client must be prepared with [Register]:
//
//	client := mcp.NewClient(impl, &mcp.ClientOptions{
//		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
//	})
//	if err := taskclient.Register(client); err != nil { ... }
//	cs, err := client.Connect(ctx, taskclient.Transport(transport), nil)
//	tc := taskclient.New(cs, &taskclient.Options{Answer: answer})
//	res, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "rollout", Arguments: args})
package taskclient
