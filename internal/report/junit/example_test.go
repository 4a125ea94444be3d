package junit_test

import (
	"os"

	"github.com/askback/askback/internal/report/junit"
)

func ExampleWrite() {
	doc := &junit.Suites{Name: "checks", Suites: []junit.Suite{{
		Name: "deploy.mcp",
		Cases: []junit.Case{
			{Name: "1: call_tool deploy", Classname: "deploy.mcp"},
			{Name: "2: assert_contains", Classname: "deploy.mcp", Failure: &junit.Problem{Message: "not found", Text: "expected: Rolling out\x01"}},
			{Name: "3: assert_elicited", Classname: "deploy.mcp", Skipped: &junit.Skip{Message: "nothing asked"}},
		},
	}}}
	if err := junit.Write(os.Stdout, doc); err != nil {
		panic(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="checks" tests="3" failures="1" errors="0" skipped="1">
	//   <testsuite name="deploy.mcp" tests="3" failures="1" errors="0" skipped="1">
	//     <testcase name="1: call_tool deploy" classname="deploy.mcp"></testcase>
	//     <testcase name="2: assert_contains" classname="deploy.mcp">
	//       <failure message="not found">expected: Rolling out\x01</failure>
	//     </testcase>
	//     <testcase name="3: assert_elicited" classname="deploy.mcp">
	//       <skipped message="nothing asked"></skipped>
	//     </testcase>
	//   </testsuite>
	// </testsuites>
}
