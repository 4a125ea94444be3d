package answer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Spec is one scripted answer: an action, optional content, and optionally
// the key of the question it is meant for.
type Spec struct {
	Key     string         // empty: the next question, whatever its key
	Action  string         // accept, decline or cancel
	Content map[string]any // accept only; nil when none was given
	// Origin is where the answer was written. It is the answer's identity:
	// a [Queue] hands it back with the spec from Unused, so that an unused
	// answer is reported where it was written. Zero for --elicit answers.
	Origin Origin
	// Round and Mode, when set, keep the answer for questions of that
	// round of the call and of that mode ("form" or "url"): the asktest
	// package's answers for one round, and its consent to open a URL. The
	// command line and scripts leave them zero.
	Round int
	Mode  string
	// Exact sends an accepted answer's content exactly as given: the
	// schema's defaults are not filled in for the fields it leaves out (a
	// script's "elicit_response accept '{…}' exact", which a script made
	// from a recording writes where the recorded answer left out a field
	// with a default). Validation is unchanged.
	Exact bool
}

// Allows reports whether s may answer qu by its Round and Mode.
func (s Spec) Allows(qu *Question) bool {
	return (s.Round == 0 || s.Round == qu.Round) && (s.Mode == "" || s.Mode == qu.Mode())
}

// Origin is where a scripted answer was written: a script's file and line.
type Origin struct {
	File string
	Line int
}

// String renders the spec the way it is written on the command line.
func (s Spec) String() string {
	var b strings.Builder
	if s.Key != "" {
		b.WriteString(s.Key + "=")
	}
	b.WriteString(s.Action)
	if s.Content != nil {
		c, _ := json.Marshal(s.Content)
		b.WriteString(":" + string(c))
	}
	if s.Exact {
		b.WriteString(" exact")
	}
	return b.String()
}

// Result is the answer the spec gives, before defaults and validation.
func (s Spec) Result() *mcp.ElicitResult {
	res := &mcp.ElicitResult{Action: s.Action}
	if s.Action == "accept" && s.Content != nil {
		res.Content = make(map[string]any, len(s.Content))
		for k, v := range s.Content {
			res.Content[k] = v
		}
	}
	return res
}

// ParseSpec reads an answer as written after --elicit:
//
//	accept | decline | cancel | accept:{"field":"value"} | KEY=ANSWER
//
// The key is the question's key in the server's inputRequests. The word
// exact after an accept (accept:{"field":"value"} exact, accept exact), as
// a script's elicit_response takes it, sends its content exactly as
// written ([Spec.Exact]).
func ParseSpec(text string) (Spec, error) {
	var s Spec
	rest := strings.TrimSpace(text)
	if before, ok := cutExact(rest); ok {
		s.Exact, rest = true, before
	}
	if key, after, ok := strings.Cut(rest, "="); ok && !strings.ContainsAny(key, ":{ ") {
		if key == "" {
			return s, fmt.Errorf("answer %q: the key before '=' is empty", text)
		}
		s.Key, rest = key, after
	}
	action, content, hasContent := strings.Cut(rest, ":")
	action = strings.TrimSpace(action)
	if err := ParseAction(action); err != nil {
		return s, fmt.Errorf("answer %q: %w", text, err)
	}
	s.Action = action
	if s.Exact && action != "accept" {
		return s, fmt.Errorf("answer %q: exact is for the content of accept; %s takes none", text, action)
	}
	if !hasContent {
		return s, nil
	}
	if action != "accept" {
		return s, fmt.Errorf("answer %q: only accept carries content (%s takes none)", text, action)
	}
	c, err := userjson.Parse("content", content, userjson.Float64)
	if err != nil {
		return s, fmt.Errorf("answer %q: %w", text, err)
	}
	s.Content = c
	return s, nil
}

// cutExact is text without the word exact that ends it, after a space:
// "accept:{…} exact" is "accept:{…}".
func cutExact(text string) (string, bool) {
	before, ok := strings.CutSuffix(text, "exact")
	if !ok || before == "" || (before[len(before)-1] != ' ' && before[len(before)-1] != '\t') {
		return text, false
	}
	return strings.TrimSpace(before), true
}

// ParseAction checks that a is accept, decline or cancel.
func ParseAction(a string) error {
	switch a {
	case "accept", "decline", "cancel":
		return nil
	case "":
		return fmt.Errorf("the action is missing; use accept, decline or cancel")
	}
	return fmt.Errorf("unknown action %q; use accept, decline or cancel", a)
}
