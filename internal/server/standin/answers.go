//lint:file-ignore SA1019 sampling and roots are deprecated but still asked and answered

package standin

import (
	"encoding/json"
	"fmt"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How answers are checked.
const (
	// AnswersExact: each answer must be the recorded one: the same action
	// and, for an accepted form, the same content (compared canonically,
	// after the schema's defaults are filled in on both sides); a URL
	// question's action; a sampling reply's role and content; the same
	// roots.
	AnswersExact = "exact"
	// AnswersSchema: each answer must only fit its question: an action of
	// the protocol, and an accepted form's content valid against the
	// requested schema.
	AnswersSchema = "schema"
)

// verdict is the outcome of checking one answer: ok, or why not.
type verdict struct {
	ok     bool
	detail string
	// recorded and got are the two answers as compared.
	recorded, got json.RawMessage
}

// checkAnswer checks the client's answer to q, as mode says.
func checkAnswer(mode string, q *Question, got mcp.InputResponse) verdict {
	gotRaw, err := json.Marshal(got)
	if err != nil {
		return verdict{detail: fmt.Sprintf("the answer cannot be read: %v", err)}
	}
	if mode == AnswersSchema {
		return checkSchema(q, got, gotRaw)
	}
	switch {
	case q.AnswerErr != nil:
		return verdict{got: gotRaw, detail: fmt.Sprintf("the recorded client answered with an error (%d %s); this one answered", q.AnswerErr.Code, q.AnswerErr.Message)}
	case q.Answer == nil:
		// Nothing to compare with: the recording ends before its answer.
		return verdict{ok: true}
	}
	switch q.Method {
	case "elicitation/create":
		return checkElicit(q, got, gotRaw)
	case "sampling/createMessage":
		return checkSampling(q, got, gotRaw)
	case "roots/list":
		return checkRoots(q, got, gotRaw)
	}
	return verdict{got: gotRaw, detail: fmt.Sprintf("a question of %s cannot be checked", q.Method)}
}

// elicitParams reads what checking needs of an elicitation's params.
type elicitParams struct {
	Mode            string `json:"mode"`
	RequestedSchema any    `json:"requestedSchema"`
}

func checkElicit(q *Question, got mcp.InputResponse, gotRaw json.RawMessage) verdict {
	g, ok := got.(*mcp.ElicitResult)
	if !ok || g == nil {
		return verdict{got: gotRaw, detail: "the answer is not an elicitation result (action, content)"}
	}
	var want mcp.ElicitResult
	if err := json.Unmarshal(q.Answer, &want); err != nil {
		return verdict{got: gotRaw, detail: fmt.Sprintf("the recorded answer is not an elicitation result: %v", err)}
	}
	var p elicitParams
	_ = json.Unmarshal(q.Params, &p)
	return compare(p.shown(&want), p.shown(g))
}

// shownElicit is an elicitation answer as compared: its action and, for
// an accepted form, its content with the schema's defaults filled in.
type shownElicit struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// shown is answer a to the question of params p as compared.
func (p elicitParams) shown(a *mcp.ElicitResult) shownElicit {
	sh := shownElicit{Action: a.Action}
	if p.Mode == "url" || a.Action != "accept" {
		return sh
	}
	sh.Content = a.Content
	if schema, err := formschema.Parse(p.RequestedSchema); err == nil {
		sh.Content = schema.ApplyDefaults(sh.Content)
	}
	return sh
}

func checkSampling(q *Question, got mcp.InputResponse, gotRaw json.RawMessage) verdict {
	g, ok := got.(*mcp.CreateMessageWithToolsResult)
	if !ok || g == nil {
		return verdict{got: gotRaw, detail: "the answer is not a sampling reply (role, content)"}
	}
	var want mcp.CreateMessageWithToolsResult
	if err := json.Unmarshal(q.Answer, &want); err != nil {
		return verdict{got: gotRaw, detail: fmt.Sprintf("the recorded answer is not a sampling reply: %v", err)}
	}
	type shown struct {
		Role    mcp.Role      `json:"role"`
		Content []mcp.Content `json:"content"`
	}
	return compare(shown{want.Role, want.Content}, shown{g.Role, g.Content})
}

func checkRoots(q *Question, got mcp.InputResponse, gotRaw json.RawMessage) verdict {
	g, ok := got.(*mcp.ListRootsResult)
	if !ok || g == nil {
		return verdict{got: gotRaw, detail: "the answer is not a roots list"}
	}
	var want mcp.ListRootsResult
	if err := json.Unmarshal(q.Answer, &want); err != nil {
		return verdict{got: gotRaw, detail: fmt.Sprintf("the recorded answer is not a roots list: %v", err)}
	}
	type shown struct {
		Roots []*mcp.Root `json:"roots"`
	}
	return compare(shown{want.Roots}, shown{g.Roots})
}

// compare compares two answers as shown, canonically.
func compare(want, got any) verdict {
	w, werr := canonical(want)
	g, gerr := canonical(got)
	v := verdict{recorded: json.RawMessage(w), got: json.RawMessage(g)}
	switch {
	case werr != nil:
		v.recorded = nil
		v.detail = fmt.Sprintf("the recorded answer has no canonical form: %v", werr)
	case gerr != nil:
		v.got = nil
		v.detail = fmt.Sprintf("the answer has no canonical form: %v", gerr)
	case w == g:
		v.ok = true
	default:
		// Both are in the problem (recorded, got): not repeated here.
		v.detail = "the answer differs from the recorded one"
	}
	return v
}

// checkSchema checks an answer against its question only.
func checkSchema(q *Question, got mcp.InputResponse, gotRaw json.RawMessage) verdict {
	v := verdict{got: gotRaw}
	switch q.Method {
	case "elicitation/create":
		v.ok, v.detail = fitsForm(q, got)
	case "sampling/createMessage":
		_, v.ok = got.(*mcp.CreateMessageWithToolsResult)
		if !v.ok {
			v.detail = "the answer is not a sampling reply (role, content)"
		}
	case "roots/list":
		_, v.ok = got.(*mcp.ListRootsResult)
		if !v.ok {
			v.detail = "the answer is not a roots list"
		}
	}
	return v
}

// fitsForm checks an answer to an elicitation against its question only:
// an action of the protocol and, for an accepted form, content valid
// against the requested schema; it says why not.
func fitsForm(q *Question, got mcp.InputResponse) (bool, string) {
	g, ok := got.(*mcp.ElicitResult)
	if !ok || g == nil {
		return false, "the answer is not an elicitation result (action, content)"
	}
	switch g.Action {
	case "accept", "decline", "cancel":
	default:
		return false, fmt.Sprintf("the action %q is none of accept, decline and cancel", g.Action)
	}
	var p elicitParams
	_ = json.Unmarshal(q.Params, &p)
	if g.Action != "accept" || p.Mode == "url" {
		return true, ""
	}
	schema, err := formschema.Parse(p.RequestedSchema)
	if err != nil {
		return false, fmt.Sprintf("the recorded question's schema cannot be read: %v", err)
	}
	if err := schema.Validate(schema.ApplyDefaults(g.Content)); err != nil {
		return false, err.Error()
	}
	return true, ""
}
