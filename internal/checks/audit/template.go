package audit

import (
	"net/url"
	"strings"

	"github.com/askback/askback/internal/text/lazyre"
)

var templateExpr = lazyre.New(`\{([+#./;?&]?)([^}]*)\}`)

// templateVars lists the variable names of a URI template (RFC 6570).
func templateVars(tmpl string) []string {
	var out []string
	for _, m := range templateExpr.FindAllStringSubmatch(tmpl, -1) {
		for _, v := range strings.Split(m[2], ",") {
			if name := varName(v); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

func varName(spec string) string {
	spec = strings.TrimSpace(strings.TrimSuffix(spec, "*"))
	name, _, _ := strings.Cut(spec, ":")
	return name
}

// expand fills a URI template with values: the simple, reserved,
// fragment, label, path, path-parameter and query forms of RFC 6570, each
// variable a single value.
func expand(tmpl string, args map[string]any) string {
	return templateExpr.ReplaceAllStringFunc(tmpl, func(expr string) string { return expandExpr(expr, args) })
}

// expandExpr fills one expression of a URI template ({var}, {+var},
// {?a,b}, …) with values: the variables args has, escaped but for the
// reserved and fragment forms.
func expandExpr(expr string, args map[string]any) string {
	m := templateExpr.FindStringSubmatch(expr)
	op := m[1]
	var parts []string
	for _, v := range strings.Split(m[2], ",") {
		name := varName(v)
		val, ok := args[name]
		if !ok {
			continue
		}
		s := url.PathEscape(strings.TrimSpace(stringOf(val)))
		if op == "+" || op == "#" {
			s = stringOf(val)
		}
		switch op {
		case ";", "?", "&":
			parts = append(parts, name+"="+s)
		default:
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return joinExpansion(op, parts)
}

// joinExpansion joins the expanded variables of an expression of
// operator op, with the prefix and separator the operator takes.
func joinExpansion(op string, parts []string) string {
	switch op {
	case "", "+":
		return strings.Join(parts, ",")
	case "#", ".", "/":
		return op + strings.Join(parts, map[string]string{"#": ",", ".": ".", "/": "/"}[op])
	case ";":
		return ";" + strings.Join(parts, ";")
	case "?":
		return "?" + strings.Join(parts, "&")
	}
	return "&" + strings.Join(parts, "&")
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return strings.TrimSpace(strings.Trim(string(mustJSON(v)), `"`))
}
