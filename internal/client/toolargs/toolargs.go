// Package toolargs checks what a person wrote for a tool before anything is
// sent: the tool's name against the server's tools (Find: "did you mean
// deploy?") and the arguments (call --args, audit --args) against the
// tool's input schema (Check: an argument the tool does not take, one it
// requires, a value of the wrong kind, each named). A check this package
// cannot make, because the server's own schema is broken or of a draft it
// does not read, is left to the server.
package toolargs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/text/suggest"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Find returns the tool named name. For a name no tool has, the error
// names the nearest tool when the name looks like a typo of it.
func Find(name string, tools []*mcp.Tool) (*mcp.Tool, error) {
	var names []string
	for _, t := range tools {
		if t == nil {
			continue
		}
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	nl := &NotListedError{Name: name, listed: names}
	if h, ok := suggest.Closest(name, names); ok {
		nl.Closest = h
	}
	return nil, nl
}

// NotListedError is a tool the server does not list: Find's error.
type NotListedError struct {
	Name string
	// Closest is the listed name a typo of Name most likely meant; "" when
	// none is close.
	Closest string
	listed  []string
}

// Error names the tool a typo most likely meant, else some of those
// listed.
func (e *NotListedError) Error() string {
	msg := fmt.Sprintf("the server lists no tool %q", e.Name)
	if e.Closest != "" {
		return fmt.Sprintf("%s (did you mean %q?)", msg, e.Closest)
	}
	return fmt.Sprintf("%s (it lists %s)", msg, some(e.listed))
}

// some lists up to ten names.
func some(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	names = slices.Sorted(slices.Values(names))
	shown := names[:min(len(names), 10)]
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = strconv.Quote(n)
	}
	s := strings.Join(quoted, ", ")
	if len(names) > len(shown) {
		s += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return s
}

// Check checks args against the input schema of the tool named tool: every
// argument is a property of the schema (unless it takes others), every
// required property is given, and the arguments validate against the
// schema. The error names the argument, and for a misspelt one the
// property it most likely meant.
func Check(tool string, inputSchema any, args map[string]any) error {
	raw, err := json.Marshal(onlyGiven(inputSchema, args))
	if err != nil {
		return nil
	}
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return nil // not a schema this package reads: the server judges
	}
	props := slices.Sorted(maps.Keys(s.Properties))
	var unknown []string
	for k := range args {
		if _, ok := s.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 && closed(s.AdditionalProperties) {
		return unknownArg(tool, unknown[0], props) // the first, in byte order
	}
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			return missingArg(tool, r, unknown, props)
		}
	}
	return validate(tool, &s, args)
}

// onlyGiven is inputSchema with the schemas of the properties args does
// not give left out (each an empty schema, so that its name is still
// known): they are not validated, and one of them (an enum of millions of
// values, say) would cost many times its size once decoded. An input schema
// of another shape is returned as it is.
func onlyGiven(inputSchema any, args map[string]any) any {
	m, ok := inputSchema.(map[string]any)
	if !ok {
		return inputSchema
	}
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return inputSchema
	}
	out := maps.Clone(m)
	kept := make(map[string]any, len(props))
	for k, v := range props {
		if _, given := args[k]; given {
			kept[k] = v
		} else {
			kept[k] = map[string]any{}
		}
	}
	out["properties"] = kept
	return out
}

// unknownArg says that tool takes no argument k, and what it likely meant.
func unknownArg(tool, k string, props []string) error {
	msg := fmt.Sprintf("tool %s takes no argument %q", tool, k)
	if h, ok := suggest.Closest(k, props); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", h)
	}
	return fmt.Errorf("%s; it takes: %s", msg, takes(props))
}

// missingArg says that tool requires the argument r, and which of the
// unknown arguments given may be it misspelt.
func missingArg(tool, r string, unknown, props []string) error {
	msg := fmt.Sprintf("tool %s requires the argument %q", tool, r)
	for _, k := range unknown {
		if h, ok := suggest.Closest(k, []string{r}); ok && h == r {
			msg += fmt.Sprintf(" (is %q a misspelling of it?)", k)
			break
		}
	}
	return fmt.Errorf("%s; it takes: %s", msg, takes(props))
}

// validate validates args against schema s, when it is of a draft the
// validator reads and resolves.
func validate(tool string, s *jsonschema.Schema, args map[string]any) error {
	if s.Schema != "" && !strings.Contains(s.Schema, "draft-07") && !strings.Contains(s.Schema, "2020-12") {
		return nil // a draft the validator does not read
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil // the server's schema is broken (a $ref elsewhere, say): the server judges
	}
	// An optional argument given as null is how many callers say "not
	// given" (the header mirroring of the 2026-07-28 protocol, for one,
	// omits it): it is sent as written and not held against its type.
	given := make(map[string]any, len(args))
	for k, v := range args {
		if v == nil && !slices.Contains(s.Required, k) {
			continue
		}
		given[k] = v
	}
	var instance any
	b, err := json.Marshal(given)
	if err != nil || json.Unmarshal(b, &instance) != nil {
		return nil
	}
	if err := rs.Validate(instance); err != nil {
		return fmt.Errorf("the arguments do not fit the input schema of tool %s: %v", tool, err)
	}
	return nil
}

// closed reports whether additionalProperties refuses every property it
// is given (false, written as a schema that matches nothing).
func closed(ap *jsonschema.Schema) bool {
	if ap == nil {
		return false
	}
	b, err := json.Marshal(ap)
	return err == nil && (string(b) == "false" || string(b) == `{"not":{}}`)
}

func takes(props []string) string {
	if len(props) == 0 {
		return "no arguments"
	}
	return strings.Join(props, ", ")
}
