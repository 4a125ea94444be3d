package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/askback/askback/internal/text/credential"
)

// stateKey is the field whose value a trace hides.
const stateKey = "requestState"

// Redact returns raw with every "requestState" string replaced by a note of
// its length, wherever it is nested, unless show is set. Text that is not
// JSON is returned as a JSON string noting its length, so that nothing
// unread slips through.
func Redact(raw json.RawMessage, show bool) json.RawMessage {
	if len(raw) == 0 || show {
		return raw
	}
	// Fast path: no key can spell requestState without these bytes (an
	// escaped key, such as "request\u0053tate", needs a backslash).
	if !bytes.Contains(raw, []byte(stateKey)) && !bytes.Contains(raw, []byte(`\`)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b, _ := json.Marshal(fmt.Sprintf("[unreadable JSON: %d bytes]", len(raw)))
		return b
	}
	v = redactValue(v, 0)
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprintf("[unprintable: %d bytes]", len(raw)))
	}
	return b
}

// maxDepth bounds the walk; deeper values are dropped whole.
const maxDepth = 64

func redactValue(v any, depth int) any {
	if depth > maxDepth {
		return "[too deep]"
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == stateKey {
				if s, ok := x.(string); ok {
					v[k] = StateNote(s)
				} else {
					// Not a string, so not a valid state, but hidden all the same.
					b, _ := json.Marshal(x)
					v[k] = fmt.Sprintf("[requestState: %d bytes of JSON]", len(b))
				}
				continue
			}
			v[k] = redactValue(x, depth+1)
		}
	case []any:
		for i, x := range v {
			v[i] = redactValue(x, depth+1)
		}
	}
	return v
}

// StateNote is what a trace shows instead of a requestState.
func StateNote(s string) string {
	return fmt.Sprintf("[requestState: %d bytes]", len(s))
}

// RedactHeaders returns "Name: value" lines with the values of credential
// headers replaced by "[redacted]" (credential.Header: by the header's
// name, the value's form, or a generated-looking value in a header of no
// standard's). An MCP session id is shown by its length.
func RedactHeaders(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			out = append(out, "[unreadable header]")
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case http.CanonicalHeaderKey(name) == sessionHeader:
			if !strings.HasPrefix(value, "[session id: ") {
				value = fmt.Sprintf("[session id: %d bytes]", len(value))
			}
			out = append(out, name+": "+value)
		case credential.Header(name, value):
			out = append(out, name+": "+credential.Hidden)
		default:
			out = append(out, l)
		}
	}
	return out
}

// sessionHeader carries the MCP session id: whoever holds it may speak in
// that session, so a trace shows only its length.
const sessionHeader = "Mcp-Session-Id"
