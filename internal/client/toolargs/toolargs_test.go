package toolargs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var deploySchema = json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"},"count":{"type":"integer","minimum":1}},"required":["service"],"additionalProperties":false}`)

func TestCheck(t *testing.T) {
	cases := []struct {
		schema any
		args   string
		want   string // "" when the arguments fit
	}{
		{deploySchema, `{"service":"auth"}`, ""},
		{deploySchema, `{"service":"auth","count":2}`, ""},
		{deploySchema, `{"servce":"auth"}`, `tool deploy takes no argument "servce" (did you mean "service"?); it takes: count, service`},
		{deploySchema, `{"colour":"red","service":"x"}`, `tool deploy takes no argument "colour"; it takes: count, service`},
		{deploySchema, `{}`, `tool deploy requires the argument "service"; it takes: count, service`},
		{deploySchema, `{"service":1}`, `the arguments do not fit the input schema of tool deploy: `},
		{deploySchema, `{"service":"x","count":0}`, `the arguments do not fit the input schema of tool deploy: `},
		// null for an optional argument means "not given"; for a required one it is checked.
		{deploySchema, `{"service":"x","count":null}`, ""},
		{deploySchema, `{"service":null}`, `the arguments do not fit the input schema of tool deploy: `},
		// additionalProperties written as a schema that matches nothing.
		{json.RawMessage(`{"type":"object","properties":{"a":{}},"additionalProperties":{"not":{}}}`), `{"b":1}`, `tool deploy takes no argument "b"`},
		// An open schema takes other arguments; a misspelt required one is pointed at.
		{json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}`), `{"extra":1,"service":"x"}`, ""},
		{json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}`), `{"servce":"x"}`, `tool deploy requires the argument "service" (is "servce" a misspelling of it?)`},
		// Schemas the validator cannot read are left to the server.
		{json.RawMessage(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"string"}}}`), `{"a":1}`, ""},
		{json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.test/a.json"}}}`), `{"a":1}`, ""},
		{json.RawMessage(`"not a schema"`), `{"a":1}`, ""},
		{map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}}, `{"n":"x"}`, "the arguments do not fit"},
	}
	for _, c := range cases {
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		err := Check("deploy", c.schema, args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s against %s: %v", c.args, c.schema, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s against %s:\ngot  %v\nwant %s…", c.args, c.schema, err, c.want)
		}
	}
}

func TestFind(t *testing.T) {
	tools := []*mcp.Tool{{Name: "deploy"}, {Name: "rollout"}, nil}
	if tl, err := Find("deploy", tools); err != nil || tl.Name != "deploy" {
		t.Errorf("Find(deploy) = %v, %v", tl, err)
	}
	if _, err := Find("deplyo", tools); err == nil || err.Error() != `the server lists no tool "deplyo" (did you mean "deploy"?)` {
		t.Errorf("Find(deplyo): %v", err)
	}
	if _, err := Find("zzz", tools); err == nil || err.Error() != `the server lists no tool "zzz" (it lists "deploy", "rollout")` {
		t.Errorf("Find(zzz): %v", err)
	}
}

func ExampleFind() {
	_, err := Find("deplyo", []*mcp.Tool{{Name: "deploy"}, {Name: "rollout"}})
	fmt.Println(err)
	// Output: the server lists no tool "deplyo" (did you mean "deploy"?)
}

// A server's schema is untrusted: whatever it holds, Check answers.
func FuzzCheck(f *testing.F) {
	f.Add(string(deploySchema), `{"service":"auth"}`)
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"integer"}}}`, `{"a":"1"}`)
	f.Add(`{"type":"object","additionalProperties":false,"required":["a","a"]}`, `{}`)
	f.Add(`{"properties":{"a":{"pattern":"("}}}`, `{"a":"x"}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		var m map[string]any
		if json.Unmarshal([]byte(args), &m) != nil {
			return
		}
		_ = Check("t", json.RawMessage(schema), m)
	})
}
