package formschema_test

import (
	"encoding/json"
	"fmt"

	"github.com/askback/askback/formschema"
)

// A client reads the schema a server asked with, fills the defaults of the
// fields the person left alone, and checks the answer before sending it.
func ExampleParse() {
	var requested any
	_ = json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"env": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
			"replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2}
		},
		"required": ["env"]
	}`), &requested)
	schema, err := formschema.Parse(requested)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range schema.Fields {
		fmt.Printf("%s (%s) required=%v\n", f.Label(), f.Kind, f.Required)
	}

	answer := schema.ApplyDefaults(map[string]any{"env": "production"})
	fmt.Println(answer["replicas"], schema.Validate(answer))

	fmt.Println(schema.Validate(map[string]any{"env": "qa", "replicas": 20.0}))
	// Output:
	// Environment (single-enum) required=true
	// replicas (integer) required=false
	// 2 <nil>
	// answer does not match the requested schema: field "env": must be one of "staging", "production", got the string "qa"; field "replicas": must be at most 10, got 20
}
