package script_test

import (
	"fmt"

	"github.com/askback/askback/internal/script"
)

func ExampleParseFile() {
	s, err := script.ParseFile("deploy.mcp", []byte(`elicit_response accept '{"environment": "staging", "confirm": true}'
call_tool deploy service:"auth-service"   # asks where to
assert_elicited "version 2.4.1"
assert_contains "to staging"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range s.Steps() {
		fmt.Printf("%d: %s\n", st.Line, st.Command)
	}

	_, err = script.ParseFile("typo.mcp", []byte("ping\ncall_tol deploy\n"))
	fmt.Println(err)
	// Output:
	// 1: elicit_response
	// 2: call_tool
	// 3: assert_elicited
	// 4: assert_contains
	// typo.mcp:2:1: unknown command "call_tol"; did you mean "call_tool"?
}
