package htmlreport_test

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/script"
)

// A test run's page: its title says what a person sees first.
func ExampleWriteScripts() {
	rep := &script.Report{Scripts: []*script.ScriptResult{{Name: "deploy.mcp", Steps: []*script.StepResult{
		{Line: 1, Col: 1, Command: "call_tool", Text: `call_tool deploy service:"auth-service"`, Passed: true},
		{Line: 2, Col: 1, Command: "assert_contains", Text: `assert_contains "to production"`, Message: "the result does not contain the text"},
	}}}}
	var page bytes.Buffer
	meta := htmlreport.Meta{Command: "mcp-tester test", Target: "command bin/deployer", Version: "v1.0.0", Generated: time.Date(2026, 12, 24, 9, 0, 0, 0, time.UTC)}
	if err := htmlreport.WriteScripts(&page, meta, rep); err != nil {
		panic(err)
	}
	fmt.Println(regexp.MustCompile(`<title>.*</title>`).FindString(page.String()))
	fmt.Println(regexp.MustCompile(`data-where="[^"]*"`).FindString(page.String()))
	// Output:
	// <title>mcp-tester test: 1 passed, 1 failed</title>
	// data-where="deploy.mcp:2:1"
}
