package form_test

import (
	"fmt"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/form"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Target struct {
	Environment string `json:"environment" form:"title=Target environment,default=staging,oneof=staging:Staging|production:Production"`
	Confirm     bool   `json:"confirm" form:"title=I have reviewed the changes"`
}

func Example() {
	targetForm := form.Must[Target](nil)

	// Round 1: ask.
	q := targetForm.Ask("Roll out auth-service version 2.4.1 – where to?")
	fmt.Println(q.Mode, q.Message)

	// Round 2: look the answer up and decode it; omitted fields take their
	// defaults.
	responses := mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	answer, ok := ask.Lookup(responses, "target")
	if !ok {
		return // ask again
	}
	t, err := targetForm.Decode(answer)
	fmt.Println(t.Environment, t.Confirm, err)

	// A form that asks for a secret is refused when it is built.
	type Login struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	_, err = form.New[Login](nil)
	fmt.Println(err != nil)
	// Output:
	// form Roll out auth-service version 2.4.1 – where to?
	// staging true <nil>
	// true
}
