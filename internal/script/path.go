package script

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/script/expect"
)

// parsePath parses a set_var path: structuredContent.a.b, $.a.b, $ (the
// whole result), content.0.text or content[0].text. Numbers index arrays.
func parsePath(s string) ([]string, error) {
	return expect.PathSyntax{
		Forms: "$.a.b, structuredContent.a.b, content.0.text or rawResponse",
		Index: "content[0]",
	}.Parse(s)
}

// lookupPath follows path through a decoded JSON value.
func lookupPath(v any, path []string) (any, error) {
	for i, el := range path {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[el]
			if !ok {
				return nil, fmt.Errorf("%s has no field %q", pathString(path[:i]), el)
			}
			v = next
		case []any:
			n, err := strconv.Atoi(el)
			if err != nil {
				return nil, fmt.Errorf("%s is an array; index it with a number, not %q", pathString(path[:i]), el)
			}
			if n < 0 || n >= len(x) {
				return nil, fmt.Errorf("%s has %d element(s); index %d is out of range", pathString(path[:i]), len(x), n)
			}
			v = x[n]
		default:
			return nil, fmt.Errorf("%s is %s, not an object or array", pathString(path[:i]), expect.KindOf(v))
		}
	}
	return v, nil
}

func pathString(path []string) string {
	if len(path) == 0 {
		return "the result"
	}
	return "$." + strings.Join(path, ".")
}

// varString renders a value for a variable: strings as they are, anything
// else as compact JSON.
func varString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
