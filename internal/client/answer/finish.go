package answer

import (
	"fmt"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Finish prepares an answer for sending. For an accepted form question it
// fills absent fields from the schema's defaults (SEP-1034), so a bare
// accept sends the defaults, unless the answer is to be sent exactly as
// given (q.Exact), and, when validate is set, checks the content
// against the requested schema; a mismatch is an *InvalidAnswerError naming
// the question and the field. URL questions carry no content. Decline and
// cancel are sent without content.
func Finish(q *Question, res *mcp.ElicitResult, validate bool) (*mcp.ElicitResult, error) {
	if res == nil {
		return nil, fmt.Errorf("question %s: the answerer gave no answer", q.label())
	}
	if err := ParseAction(res.Action); err != nil {
		return nil, fmt.Errorf("question %s: %w", q.label(), err)
	}
	out := &mcp.ElicitResult{Meta: res.Meta, Action: res.Action}
	if res.Action != "accept" {
		return out, nil
	}
	if q.Mode() == "url" {
		if validate && len(res.Content) > 0 {
			return nil, &InvalidAnswerError{Question: q.label(), Err: fmt.Errorf("a URL question takes no content")}
		}
		if !validate {
			out.Content = res.Content
		}
		return out, nil
	}
	if q.Form == nil {
		out.Content = res.Content
		return out, nil
	}
	out.Content = res.Content
	if !q.Exact {
		out.Content = q.Form.ApplyDefaults(res.Content)
	}
	if !validate {
		return out, nil
	}
	if err := q.Form.Validate(out.Content); err != nil {
		return nil, &InvalidAnswerError{Question: q.label(), Err: err}
	}
	return out, nil
}

// FillsDefaults reports whether [Finish] would add to the content of an
// accepted answer to a form whose requested schema is requestedSchema: a
// field the content leaves out (or answers with null) has a default. An
// answer that must reach the server as it is then needs [Spec.Exact]. A
// schema outside the form subset fills in nothing.
func FillsDefaults(requestedSchema any, content map[string]any) bool {
	form, err := formschema.Parse(requestedSchema)
	if err != nil {
		return false
	}
	for _, f := range form.Fields {
		if v, ok := content[f.Name]; (!ok || v == nil) && f.Default != nil {
			return true
		}
	}
	return false
}

func (q *Question) label() string {
	if q.Key != "" {
		return fmt.Sprintf("%q", q.Key)
	}
	return fmt.Sprintf("%q", q.Params.Message)
}

// InvalidAnswerError says that an answer does not fit its question.
type InvalidAnswerError struct {
	Question string
	Err      error
}

func (e *InvalidAnswerError) Error() string {
	return fmt.Sprintf("answer to question %s: %v", e.Question, e.Err)
}

func (e *InvalidAnswerError) Unwrap() error { return e.Err }
